package otlp

import (
	"context"
	"fmt"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/score"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Turns finds the turn an evaluation event judges.
type Turns interface {
	// TurnBySpan returns the id of the turn recorded for a span; an
	// ENOTFOUND error when there is none.
	TurnBySpan(ctx context.Context, traceID, spanID string) (string, error)
	// TurnByTrace returns the id of the last turn recorded in a trace; an
	// ENOTFOUND error when there is none.
	TurnByTrace(ctx context.Context, traceID string) (string, error)
	// TurnByResponseID returns the id of the turn whose metadata keeps
	// responseID under key; an ENOTFOUND error when there is none.
	TurnByResponseID(ctx context.Context, key, responseID string) (string, error)
}

// Counter counts what the receiver was sent but did not record.
type Counter interface {
	// Ignored is told of n items of kind ("span", "log_record") that
	// carried nothing hone records.
	Ignored(kind string, n int)
}

// Receiver records what applications export over OTLP: chat spans as
// turns, evaluation events as scores.
type Receiver struct {
	// Recorder records the turns, Turns finds the turns evaluations
	// judge, Scores records the evaluations.
	Recorder *capture.Recorder
	Turns    Turns
	Scores   *score.Service
	// Counter, when not nil, counts what was ignored.
	Counter Counter
}

// Outcome is what became of an export: how many items were recorded,
// ignored (not a chat, not an evaluation) and rejected, and why the first
// few were rejected.
type Outcome struct {
	Recorded, Ignored, Rejected int
	Message                     string
	reasons                     []string
}

// maxReasons bounds the reasons an Outcome's message gives.
const maxReasons = 5

// reject counts one rejected item and keeps why.
func (o *Outcome) reject(what string, err error) {
	o.Rejected++
	if len(o.reasons) < maxReasons {
		o.reasons = append(o.reasons, what+": "+hone.ErrorMessage(err))
	}
	o.Message = strings.Join(o.reasons, "; ")
	if o.Rejected > len(o.reasons) {
		o.Message += fmt.Sprintf(" (and %d more)", o.Rejected-len(o.reasons))
	}
}

// isUnavailable reports whether err is the database being unavailable:
// the whole export is to be retried, nothing refused.
func isUnavailable(err error) bool {
	c := hone.ErrorCode(err)
	return c == hone.EUNAVAILABLE || c == hone.ETIMEOUT || c == hone.EINTERNAL
}

// Traces records the chat spans of td as turns, in one batch; the error is
// for a failure of the whole write, when nothing was recorded.
func (r *Receiver) Traces(ctx context.Context, td ptrace.Traces) (Outcome, error) {
	var out Outcome
	var ins []capture.TurnInput
	var names []string
	for _, rs := range td.ResourceSpans().All() {
		res := rs.Resource().Attributes()
		for _, ss := range rs.ScopeSpans().All() {
			for _, span := range ss.Spans().All() {
				in, ok, err := SpanTurn(span, res)
				if !ok {
					out.Ignored++
					continue
				}
				if err != nil {
					out.reject("span "+span.SpanID().String(), err)
					continue
				}
				ins = append(ins, in)
				names = append(names, "span "+span.SpanID().String())
			}
		}
	}
	if r.Counter != nil && out.Ignored > 0 {
		r.Counter.Ignored("span", out.Ignored)
	}
	if len(ins) == 0 {
		return out, nil
	}
	res, err := r.Recorder.RecordBatch(ctx, ins, "")
	if err != nil {
		return Outcome{}, err
	}
	for i, res := range res {
		if res.Err != nil {
			out.reject(names[i], res.Err)
		} else {
			out.Recorded++
		}
	}
	return out, nil
}

// Logs records the gen_ai.evaluation.result events of ld as scores of the
// turns they judge (see Evaluation); other records are ignored. The error
// is for a failure of the whole write.
func (r *Receiver) Logs(ctx context.Context, ld plog.Logs) (Outcome, error) {
	var out Outcome
	var ins []score.Input
	var names []string
	configs := map[string]*score.Config{}
	n := 0
	for _, rl := range ld.ResourceLogs().All() {
		res := rl.Resource().Attributes()
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				n++
				ev, ok := EvaluationOf(lr, res)
				if !ok {
					out.Ignored++
					continue
				}
				name := fmt.Sprintf("log record %d", n)
				in, err := r.scoreOf(ctx, ev, configs)
				if err != nil {
					if isUnavailable(err) {
						return Outcome{}, err
					}
					out.reject(name, err)
					continue
				}
				ins = append(ins, in)
				names = append(names, name)
			}
		}
	}
	if r.Counter != nil && out.Ignored > 0 {
		r.Counter.Ignored("log_record", out.Ignored)
	}
	if len(ins) == 0 {
		return out, nil
	}
	res, err := r.Scores.RecordBatch(ctx, ins)
	if err != nil {
		return Outcome{}, err
	}
	for i, res := range res {
		if res.Err != nil {
			out.reject(names[i], res.Err)
		} else {
			out.Recorded++
		}
	}
	return out, nil
}
