package api

import (
	"net/http"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/jsonschema"
	"github.com/honehq/hone/internal/ndjson"
	"github.com/honehq/hone/internal/server"
)

// createTurnDoc documents POST /turns.
var createTurnDoc = &server.Doc{ID: "createTurn", Tag: "chat",
	Params: []server.Param{shared("IdempotencyKey")},
	Body:   body(capture.TurnInput{}),
	Responses: map[int]server.Response{
		http.StatusOK:       {JSON: TurnCreated{}, Headers: map[string]server.Header{ReplayedHeader: {Ref: "IdempotentReplayed"}}},
		http.StatusCreated:  answer(TurnCreated{}),
		http.StatusConflict: failure,
	}}

// createTurnsDoc documents POST /turns/batch.
var createTurnsDoc = &server.Doc{ID: "createTurns", Tag: "chat",
	Params: []server.Param{shared("IdempotencyKey")},
	Body: &server.RequestBody{JSON: jsonschema.Schema(jsonschema.Type("array"), jsonschema.MinItems(1),
		jsonschema.Items(jsonschema.Ref("TurnInput")), jsonschema.MaxItems(ndjson.MaxBatchItems)),
		Media: []string{"application/x-ndjson"}},
	Responses: map[int]server.Response{
		http.StatusOK:                    answer(BatchAnswer{}),
		http.StatusMultiStatus:           answer(BatchAnswer{}),
		http.StatusRequestEntityTooLarge: failure,
	}}

// createMessageDoc documents POST /messages.
var createMessageDoc = &server.Doc{ID: "createMessage", Tag: "chat",
	Body: body(MessageInput{}),
	Responses: map[int]server.Response{
		http.StatusOK:                 answer(chat.Reply{}),
		http.StatusServiceUnavailable: errorAnswer(retryAfter),
	}}
