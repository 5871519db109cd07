package suggestions

import (
	"math"
	"slices"
	"strconv"

	invopop "github.com/invopop/jsonschema"

	"github.com/honehq/hone/internal/jsonschema"
	"github.com/honehq/hone/suggest"
)

// RecordInput is a record as a client sends it: the fields Parse reads.
// The record keeps every other field as sent.
type RecordInput = wire

// MatchTypes are the match types, in the order the API lists them.
var MatchTypes = []string{suggest.MatchExact, suggest.MatchPartial, suggest.MatchPrefix, suggest.MatchNone}

// finite is a number JSON can hold in a float64.
var finite = jsonschema.Range(-math.MaxFloat64, math.MaxFloat64)

// JSONSchemaExtend states the rules Parse checks: what is required, the
// bounds, and that accepted_index goes with match_type.
func (wire) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Apply(s, jsonschema.Open, jsonschema.Require("ts", "suggestions", "actual_input"))
	jsonschema.Set(s, "id", jsonschema.NotBlank, jsonschema.MaxLength(MaxIDLength))
	jsonschema.Set(s, "ts", jsonschema.ExclusiveMinimum(0), jsonschema.Maximum(MaxTS))
	for _, name := range []string{"session", "server", "suggestion_node_version"} {
		jsonschema.Set(s, name, jsonschema.MaxLength(MaxNameLength))
	}
	jsonschema.Set(s, "trigger_block", jsonschema.Minimum(-1))
	jsonschema.Set(s, "result_block", jsonschema.Minimum(0))
	jsonschema.Set(s, "context", jsonschema.Open)
	jsonschema.Set(s, "llm_request", jsonschema.Open, jsonschema.Prop("messages"))
	jsonschema.Set(s, "llm_request.temperature", finite)
	jsonschema.Set(s, "llm_response", jsonschema.Open)
	jsonschema.Set(s, "llm_response.usage", jsonschema.Open)
	jsonschema.Set(s, "viewed_indices", jsonschema.Items(jsonschema.Minimum(0)))
	for _, name := range []string{"cycle_count", "context_block_count", "accepted_index"} {
		jsonschema.Set(s, name, jsonschema.Minimum(0))
	}
	jsonschema.Set(s, "displayed_index_at_submit", jsonschema.Minimum(-1))
	jsonschema.Set(s, "match_type", jsonschema.Enum(MatchTypes...))
	jsonschema.Set(s, "time_to_action_ms", jsonschema.Range(0, MaxTimeToActionMS))
	for _, name := range []string{"fetch_start_ts", "fetch_end_ts", "submit_ts", "fetch_latency_ms"} {
		jsonschema.Set(s, name, jsonschema.Range(0, math.MaxFloat64))
	}
	matchIs := func(rule jsonschema.Rule) jsonschema.Rule {
		return jsonschema.If(jsonschema.Require("match_type"), jsonschema.Prop("match_type", rule))
	}
	jsonschema.Apply(s, jsonschema.AllOf(
		jsonschema.Schema(matchIs(jsonschema.Enum(suggest.MatchExact, suggest.MatchPartial, suggest.MatchPrefix)),
			jsonschema.Then(jsonschema.Require("accepted_index"), jsonschema.Prop("accepted_index", jsonschema.Type("integer")))),
		jsonschema.Schema(matchIs(jsonschema.Const(suggest.MatchNone)),
			jsonschema.Then(jsonschema.Prop("accepted_index", jsonschema.Type("null")))),
	))
}

// JSONSchemaExtend states the counts are not negative.
func (Result) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "accepted", jsonschema.Minimum(0))
	jsonschema.Set(s, "duplicates", jsonschema.Minimum(0))
	jsonschema.Set(s, "errors_not_listed", jsonschema.Minimum(1))
}

// JSONSchemaExtend states lines count from 1.
func (LineError) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "line", jsonschema.Minimum(1))
}

// JSONSchemaExtend states the count is not negative.
func (Forgotten) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "records", jsonschema.Minimum(0))
}

// matchCountsRule is by_match_type: a count for every match type.
var matchCountsRule jsonschema.Rule = func(s *invopop.Schema) {
	s.AdditionalProperties = invopop.FalseSchema
	for _, m := range MatchTypes {
		jsonschema.Apply(s, jsonschema.Prop(m, jsonschema.Type("integer"), jsonschema.Minimum(0)))
	}
	s.Required = slices.Clone(MatchTypes)
}

// ratesRule bounds the counts and rates of a group.
func ratesRule(s *invopop.Schema) {
	jsonschema.Set(s, "total", jsonschema.Minimum(0))
	jsonschema.Set(s, "accepted", jsonschema.Minimum(0))
	jsonschema.Set(s, "acceptance_rate", jsonschema.Range(0, 1))
	jsonschema.Set(s, "exact_rate", jsonschema.Range(0, 1))
	jsonschema.Set(s, "by_match_type", matchCountsRule)
}

// JSONSchemaExtend states the counts and rates of a group.
func (Group) JSONSchemaExtend(s *invopop.Schema) {
	ratesRule(s)
	jsonschema.Set(s, "exact", jsonschema.Minimum(0))
}

// JSONSchemaExtend states the statistics' keys and bounds.
func (Stats) JSONSchemaExtend(s *invopop.Schema) {
	ratesRule(s)
	jsonschema.Set(s, "by_position", jsonschema.Keys(jsonschema.Pattern(`^(?:0|[1-9][0-9]*)$`)),
		jsonschema.Values(jsonschema.Minimum(1)))
	cycles := make([]string, CycleCap+1)
	for i := range cycles {
		cycles[i] = strconv.Itoa(i)
	}
	jsonschema.Set(s, "cycle_count", jsonschema.Keys(jsonschema.Enum(cycles...)), jsonschema.Values(jsonschema.Minimum(1)))
	jsonschema.Set(s, "by_context_size", jsonschema.Keys(jsonschema.Enum(ContextClasses...)))
	jsonschema.Set(s, "by_tokens", jsonschema.Keys(jsonschema.Enum(TokenClasses...)))
	jsonschema.Set(s, "negative_signals", func(s *invopop.Schema) {
		s.AdditionalProperties = invopop.FalseSchema
		for _, name := range Signals {
			jsonschema.Apply(s, jsonschema.Prop(name, jsonschema.Type("integer"), jsonschema.Minimum(0)))
		}
		s.Required = slices.Clone(Signals)
	})
	bins := len(histogramEdges) - 1
	jsonschema.Set(s, "time_histogram", jsonschema.MinItems(bins), jsonschema.MaxItems(bins))
}

// JSONSchemaExtend states the percentiles are not negative.
func (Percentiles) JSONSchemaExtend(s *invopop.Schema) {
	for _, p := range []string{"p50", "p90", "p99"} {
		jsonschema.Set(s, p, jsonschema.Minimum(0))
	}
}

// JSONSchemaExtend states a point's day and counts.
func (Point) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "day", jsonschema.Format("date"))
	jsonschema.Set(s, "total", jsonschema.Minimum(1))
	jsonschema.Set(s, "accepted", jsonschema.Minimum(0))
	jsonschema.Set(s, "acceptance_rate", jsonschema.Range(0, 1))
}

// JSONSchemaExtend states a bar's bounds; to_ms is -1 for the last, open
// bar.
func (Bin) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "from_ms", jsonschema.Minimum(0))
	jsonschema.Set(s, "to_ms", jsonschema.Minimum(-1))
	jsonschema.Set(s, "n", jsonschema.Minimum(0))
}

// JSONSchemaExtend states the thresholds are not negative.
func (Thresholds) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "long_think_ms", jsonschema.Minimum(0))
	jsonschema.Set(s, "many_cycles", jsonschema.Minimum(0))
}
