package tuning

import "encoding/json"

// Measurement is the objective scoring of one turn.
type Measurement struct {
	// Metrics is a JSON object keyed by metric name, N/A as null, with
	// objective_quality_score; nil when the turn was not measured.
	Metrics json.RawMessage
	// Objective is the objective quality score, nil when N/A.
	Objective *float64
}

// Measurer scores turns as they are recorded. The metrics side implements it;
// tuning only carries its result to the store.
type Measurer interface {
	Measure(in TurnInput, isFirstResponse bool) Measurement
}
