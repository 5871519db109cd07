package api

import (
	"net/http"
	"regexp"
	"slices"

	"github.com/honehq/hone/internal/jsonschema"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/suggestions"
)

// ingestSuggestionsDoc documents POST /suggestions.
var ingestSuggestionsDoc = &server.Doc{ID: "ingestSuggestions", Tag: "suggestions",
	Body: &server.RequestBody{JSON: jsonschema.Schema(jsonschema.OneOf(
		jsonschema.Schema(jsonschema.Ref("SuggestionRecord")),
		jsonschema.Schema(jsonschema.Type("array"), jsonschema.Items(jsonschema.Ref("SuggestionRecord"))))),
		Media: []string{"application/x-ndjson"}},
	Responses: map[int]server.Response{
		http.StatusOK:                    answer(suggestions.Result{}),
		http.StatusBadRequest:            failure,
		http.StatusRequestEntityTooLarge: failure,
	}}

// recordFilters are the filters of the records' routes.
var recordFilters = []server.Param{shared("SuggestionServer"), shared("SuggestionSession"), shared("SuggestionVersion"),
	shared("SuggestionModel"), shared("SuggestionMatchType"), shared("SuggestionSince"), shared("SuggestionUntil")}

// listSuggestionsDoc documents GET /suggestions.
var listSuggestionsDoc = &server.Doc{ID: "listSuggestions", Tag: "suggestions",
	Params: slices.Concat(recordFilters, []server.Param{suggestionLimit.param()}),
	Responses: map[int]server.Response{
		http.StatusOK:         answer(SuggestionList{}),
		http.StatusBadRequest: badQuery,
	}}

// forgetSuggestionSessionDoc documents DELETE /suggestions.
var forgetSuggestionSessionDoc = &server.Doc{ID: "forgetSuggestionSession", Tag: "suggestions",
	Params: []server.Param{
		{Name: "session", In: "query", Required: true,
			Schema: str(jsonschema.NotBlank, jsonschema.MaxLength(suggestions.MaxNameLength))},
		suggestionText("server"),
	},
	Responses: map[int]server.Response{
		http.StatusOK:         answer(suggestions.Forgotten{}),
		http.StatusBadRequest: failure,
	}}

// getSuggestionStatsDoc documents GET /suggestions/stats.
var getSuggestionStatsDoc = &server.Doc{ID: "getSuggestionStats", Tag: "suggestions",
	Params: []server.Param{shared("SuggestionServer"), shared("SuggestionVersion"), shared("SuggestionSince"),
		shared("SuggestionUntil")},
	Responses: map[int]server.Response{
		http.StatusOK:         answer(suggestions.Stats{}),
		http.StatusBadRequest: badQuery,
	}}

// exportSuggestionsDoc documents GET /suggestions/export.
var exportSuggestionsDoc = &server.Doc{ID: "exportSuggestions", Tag: "suggestions",
	Params: slices.Concat([]server.Param{
		{Name: "format", In: "query", Required: true, Schema: str(jsonschema.Enum(suggestions.Formats...))},
		{Name: "accepted", In: "query", AllowEmpty: true, Schema: str(jsonschema.Enum("true", "false"), jsonschema.Default("false"))},
	}, recordFilters),
	Responses: map[int]server.Response{
		http.StatusOK: {Media: []string{"application/x-ndjson"}, Headers: map[string]server.Header{"Content-Disposition": {
			Schema: str(jsonschema.Pattern(`^attachment; filename="suggestions-` + jsonschema.Words(suggestions.Formats...) +
				regexp.QuoteMeta(`.jsonl"`) + `$`))}}},
		http.StatusBadRequest: failure,
	}}
