package tuning

import "context"

// RecordTurn records a turn an application or the chat gateway reports. It is
// the one way turns enter hone, so that every face treats them alike.
//
// With a Measurer, the turn is scored here, before the store's transaction,
// as a later response of its session; only when the store finds it is the
// first turn of its session (for which asks_clarifying_questions applies) is
// it scored again, as a first response.
func (e *Engine) RecordTurn(ctx context.Context, in TurnInput) (*Turn, error) {
	if m := e.opts.Measurer; m != nil && in.Measure == nil {
		if err := in.Validate(); err != nil {
			return nil, err
		}
		later := m.Measure(in, false)
		scored := in
		in.Measure = func(first bool) Measurement {
			if first {
				return m.Measure(scored, true)
			}
			return later
		}
	}
	return e.store.RecordTurn(ctx, in)
}
