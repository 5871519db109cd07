package api

import (
	"net/http"
	"regexp"
	"slices"

	invopop "github.com/invopop/jsonschema"

	"github.com/honehq/hone/internal/jsonschema"
	"github.com/honehq/hone/internal/ndjson"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/timebound"
)

// The whole-number query parameters of GET /scores.
var (
	scoreLimit  = intQuery{name: "limit", min: 1, max: score.MaxLimit, def: score.DefaultLimit}
	scoreOffset = intQuery{name: "offset", min: 0, max: 1<<31 - 1}
)

// scoreText is a text filter of the scores' routes.
func scoreText(name string) server.Param {
	return server.Param{Name: name, In: "query", AllowEmpty: true, Schema: str()}
}

// scoreTime is a time bound of the scores' routes.
func scoreTime(name string) server.Param {
	return server.Param{Name: name, In: "query", AllowEmpty: true, Schema: str(jsonschema.Pattern(timebound.Pattern))}
}

// scoreFilters are the filters of the scores' routes (score.Query).
var scoreFilters = []server.Param{scoreText("turn_id"), scoreText("workshop_id"), scoreText("trace_id"), scoreText("config"),
	{Name: "source", In: "query", AllowEmpty: true, Schema: str(jsonschema.Enum(append(slices.Clone(score.Sources), "")...))},
	scoreText("author"), scoreText("prompt_version"), scoreTime("since"), scoreTime("until")}

// scoreConfig is the path parameter of a config.
var scoreConfig = shared("ScoreConfigRef")

// listScoreConfigsDoc documents GET /score-configs.
var listScoreConfigsDoc = &server.Doc{ID: "listScoreConfigs", Tag: "scores",
	Params: []server.Param{{Name: "archived", In: "query", AllowEmpty: true, Schema: str(jsonschema.Enum("true", "false", ""))}},
	Responses: map[int]server.Response{
		http.StatusOK:         answer(ScoreConfigList{}),
		http.StatusBadRequest: badQuery,
	}}

// addScoreConfigDoc documents POST /score-configs.
var addScoreConfigDoc = &server.Doc{ID: "addScoreConfig", Tag: "scores",
	Body: body(score.ConfigInput{}),
	Responses: map[int]server.Response{
		http.StatusCreated:  answer(score.Config{}),
		http.StatusConflict: failure,
	}}

// getScoreConfigDoc documents GET /score-configs/{id}.
var getScoreConfigDoc = &server.Doc{ID: "getScoreConfig", Tag: "scores",
	Params: []server.Param{scoreConfig},
	Responses: map[int]server.Response{
		http.StatusOK:       answer(score.Config{}),
		http.StatusNotFound: failure,
	}}

// updateScoreConfigDoc documents PATCH /score-configs/{id}.
var updateScoreConfigDoc = &server.Doc{ID: "updateScoreConfig", Tag: "scores",
	Params: []server.Param{scoreConfig},
	Body:   body(score.ConfigUpdate{}),
	Responses: map[int]server.Response{
		http.StatusOK:       answer(score.Config{}),
		http.StatusNotFound: failure,
		http.StatusConflict: failure,
	}}

// recordScoresDoc documents POST /scores.
var recordScoresDoc = &server.Doc{ID: "recordScores", Tag: "scores",
	Body: &server.RequestBody{JSON: jsonschema.Schema(jsonschema.OneOf(
		jsonschema.Schema(jsonschema.Ref("NewScore")),
		jsonschema.Schema(jsonschema.Type("array"), jsonschema.MinItems(1), jsonschema.MaxItems(ndjson.MaxBatchItems),
			jsonschema.Items(jsonschema.Ref("NewScore"))))),
		Media: []string{"application/x-ndjson"}},
	Responses: map[int]server.Response{
		http.StatusOK: {JSON: jsonschema.Schema(jsonschema.OneOf(
			jsonschema.Schema(jsonschema.Ref("Score")), jsonschema.Schema(jsonschema.Ref("ScoreBatchAnswer")))),
			Headers: map[string]server.Header{ReplayedHeader: {Schema: str(jsonschema.Const("true"))}}},
		http.StatusCreated:     answer(score.Score{}),
		http.StatusMultiStatus: answer(ScoreBatchAnswer{}),
		http.StatusNotFound:    failure,
		http.StatusConflict:    failure,
	}}

// listScoresDoc documents GET /scores.
var listScoresDoc = &server.Doc{ID: "listScores", Tag: "scores",
	Params: slices.Concat(scoreFilters, []server.Param{scoreLimit.param(), scoreOffset.param()}),
	Responses: map[int]server.Response{
		http.StatusOK:         answer(score.Page{}),
		http.StatusBadRequest: badQuery,
	}}

// exportScoresDoc documents GET /scores/export.
var exportScoresDoc = &server.Doc{ID: "exportScores", Tag: "scores",
	Params: slices.Concat([]server.Param{{Name: "format", In: "query", AllowEmpty: true,
		Schema: str(jsonschema.Enum(append(slices.Clone(score.Formats), "")...))}}, scoreFilters),
	Responses: map[int]server.Response{
		http.StatusOK: {Media: []string{"application/x-ndjson", "text/csv"}, Headers: map[string]server.Header{"Content-Disposition": {
			Schema: str(jsonschema.Pattern(`^attachment; filename="` + regexp.QuoteMeta("scores.") + jsonschema.Words(score.Formats...) + `"$`))}}},
		http.StatusBadRequest: badQuery,
	}}

// scoreID is the path parameter of a score.
var scoreID = shared("ScoreID")

// getScoreDoc documents GET /scores/{id}.
var getScoreDoc = &server.Doc{ID: "getScore", Tag: "scores",
	Params: []server.Param{scoreID},
	Responses: map[int]server.Response{
		http.StatusOK:       answer(score.Score{}),
		http.StatusNotFound: failure,
	}}

// deleteScoreDoc documents DELETE /scores/{id}.
var deleteScoreDoc = &server.Doc{ID: "deleteScore", Tag: "scores",
	Params: []server.Param{scoreID},
	Responses: map[int]server.Response{
		http.StatusNoContent: {},
		http.StatusNotFound:  failure,
		http.StatusConflict:  failure,
	}}

// JSONSchemaExtend states what a result holds: a recorded score, or an
// error, never both.
func (RecordedScore) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "index", jsonschema.Minimum(0))
	jsonschema.Set(s, "data_type", jsonschema.Enum(score.DataTypes...))
	jsonschema.Apply(s, recordedOrFailed("id", "data_type", "created_at"))
}

// JSONSchemaExtend bounds the count of errors left out.
func (ScoreBatchAnswer) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "errors_not_listed", jsonschema.Minimum(1))
}
