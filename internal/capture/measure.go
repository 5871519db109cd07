package capture

import "encoding/json"

// Measurement is the objective scoring of one turn.
type Measurement struct {
	// Metrics is a JSON object keyed by metric name, N/A as null, with
	// objective_quality_score; nil when the turn was not measured.
	Metrics json.RawMessage
	// Objective is the objective quality score, nil when N/A.
	Objective *float64
}

// Measurer scores turns as they are recorded. The scoring capability
// implements it; capture only carries its result to the store.
type Measurer interface {
	// Measure scores in as a later response of its session. When some metric
	// scores a session's first response differently, first is the scoring
	// as a first response, and nil otherwise.
	Measure(in *TurnInput) (later Measurement, first *Measurement)
}
