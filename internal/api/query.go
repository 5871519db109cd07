package api

import (
	"net/url"
	"strconv"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/jsonschema"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/workshop"
)

// intQuery is a whole-number query parameter: its handler reads it and its
// route's Doc documents it from the same bounds.
type intQuery struct {
	name     string
	min, max int
	// def is what the route takes when the parameter is left out or empty.
	def int
	// noDefault leaves def undocumented (the parameter has another source).
	noDefault bool
}

// read is the parameter's value in q, 0 when it is left out or empty; a
// value out of bounds is an error naming it.
func (p intQuery) read(q url.Values) (int, error) {
	return intParam(q.Get(p.name), p.name, p.min, p.max)
}

// param documents the parameter.
func (p intQuery) param() server.Param {
	rules := []jsonschema.Rule{jsonschema.Type("integer"), jsonschema.Range(p.min, p.max)}
	if !p.noDefault {
		rules = append(rules, jsonschema.Default(p.def))
	}
	return server.Param{Name: p.name, In: "query", AllowEmpty: true, Schema: jsonschema.Schema(rules...)}
}

// intParam reads a whole-number query parameter; an empty value counts as absent (0).
func intParam(v, name string, lo, hi int) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, hone.FieldError(name, "%s must be a whole number from %d to %d, got %q", name, lo, hi, v)
	}
	return n, nil
}

// maxListLimit is the most records a listing answers at once.
const maxListLimit = 1000

// The whole-number query parameters of the routes.
var (
	sessionLimit    = intQuery{name: "limit", min: 1, max: maxListLimit, def: capture.DefaultSessionLimit}
	sessionOffset   = intQuery{name: "offset", min: 0, max: 1<<31 - 1}
	llmCallLimit    = intQuery{name: "limit", min: 1, max: maxListLimit, def: 50}
	suggestionLimit = intQuery{name: "limit", min: 1, max: maxListLimit, def: 100}
	statsDays       = intQuery{name: "days", min: 1, max: 3650, def: learning.DefaultStatsDays}
	learningLimit   = intQuery{name: "limit", min: 1, max: learning.MaxList, def: learning.MaxList}
	traceLimit      = intQuery{name: "trace_limit", min: 0, max: workshop.MaxImportTraces, def: workshop.DefaultTraceLimit}
	questionNumber  = intQuery{name: "question_number", min: 1, max: workshop.Questions, noDefault: true}
)
