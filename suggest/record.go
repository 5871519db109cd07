package suggest

// Match types: how the submitted input relates to the suggestions.
const (
	// MatchExact is a suggestion accepted verbatim.
	MatchExact = "exact"
	// MatchPartial is a suggestion the person started from and extended.
	MatchPartial = "partial"
	// MatchPrefix is the start of a suggestion (accepted word by word).
	MatchPrefix = "prefix"
	// MatchNone is input that none of the suggestions led to.
	MatchNone = "none"
)

// Record is the complete, self-contained record of one round of
// suggestions: the context and the LLM call, the suggestions, how the
// person browsed them and what they submitted. Its JSON form is the
// spec's JSONL line (with an id).
type Record struct {
	// ID identifies the record, so that importing it twice adds it once.
	ID string `json:"id"`
	// TS is when the input was submitted, in Unix seconds.
	TS      float64 `json:"ts"`
	Session string  `json:"session"`
	Server  string  `json:"server"`
	// TriggerBlock is the block whose completion asked for the
	// suggestions; ResultBlock the block the input created, nil when it
	// created none.
	TriggerBlock int  `json:"trigger_block"`
	ResultBlock  *int `json:"result_block"`

	// Context is what was sent to the model (nodes, blocks, cwd …).
	Context map[string]any `json:"context"`
	// LLMRequest and LLMResponse are the model call as made and answered
	// (messages, model, temperature …; raw_content, usage, latency_ms …).
	LLMRequest  map[string]any `json:"llm_request"`
	LLMResponse map[string]any `json:"llm_response"`

	Suggestions []string `json:"suggestions"`
	// Version is the suggestion prompt's version, for A/B comparisons.
	Version string `json:"suggestion_node_version"`

	// ViewedIndices are the suggestions shown, in order, repeats kept
	// ([0, 1, 2, 1, 0] is a cycle forward and back).
	ViewedIndices []int `json:"viewed_indices"`
	// CycleCount counts Next and Prev.
	CycleCount int `json:"cycle_count"`
	// DisplayedIndexAtSubmit is the suggestion showing at submit, -1 for
	// none.
	DisplayedIndexAtSubmit int `json:"displayed_index_at_submit"`
	// AcceptedIndex is the suggestion the input matched, nil for none.
	AcceptedIndex *int   `json:"accepted_index"`
	ActualInput   string `json:"actual_input"`
	MatchType     string `json:"match_type"`

	// FetchStartTS, FetchEndTS and SubmitTS are Unix seconds;
	// TimeToActionMS (submit − suggestions shown) and FetchLatencyMS are
	// measured on the monotonic clock.
	FetchStartTS      float64 `json:"fetch_start_ts"`
	FetchEndTS        float64 `json:"fetch_end_ts"`
	SubmitTS          float64 `json:"submit_ts"`
	TimeToActionMS    float64 `json:"time_to_action_ms"`
	FetchLatencyMS    float64 `json:"fetch_latency_ms"`
	ContextBlockCount int     `json:"context_block_count"`
}

// Metadata is the lightweight view of a record an application keeps with
// the block the input created: no context, no LLM call.
type Metadata struct {
	Suggestions    []string `json:"suggestions"`
	AcceptedIndex  *int     `json:"accepted_index"`
	MatchType      string   `json:"match_type"`
	CycleCount     int      `json:"cycle_count"`
	TimeToActionMS float64  `json:"time_to_action_ms"`
}

// Metadata returns the record's lightweight view.
func (r *Record) Metadata() Metadata {
	return Metadata{Suggestions: r.Suggestions, AcceptedIndex: r.AcceptedIndex, MatchType: r.MatchType,
		CycleCount: r.CycleCount, TimeToActionMS: r.TimeToActionMS}
}

// Classify tells how input relates to the suggestions, as the spec's
// classifier does: the suggestions are taken in order, and the first that
// the input equals (exact), extends (partial) or begins (prefix) decides,
// so an input that begins a later suggestion but extends an earlier one is
// partial. An empty input matches nothing.
func Classify(input string, suggestions []string) (matchType string, index *int) {
	if input == "" {
		return MatchNone, nil
	}
	for i, s := range suggestions {
		switch {
		case input == s:
			return MatchExact, &i
		case len(input) > len(s) && input[:len(s)] == s:
			return MatchPartial, &i
		case len(s) > len(input) && s[:len(input)] == input:
			return MatchPrefix, &i
		}
	}
	return MatchNone, nil
}
