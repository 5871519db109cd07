package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/server"
)

// TurnCreated is the answer to POST /turns.
type TurnCreated struct {
	ID         string `json:"id"`
	SessionID  string `json:"session_id"`
	TurnNumber int    `json:"turn_number"`
}

// IdempotencyHeader carries the client's idempotency key.
const IdempotencyHeader = "Idempotency-Key"

// ReplayedHeader is set on the answer to a retried request that recorded nothing new.
const ReplayedHeader = "Idempotent-Replayed"

func (a *API) createTurn(w http.ResponseWriter, r *http.Request) error {
	var in capture.TurnInput
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	key := r.Header.Get(IdempotencyHeader)
	if err := capture.ValidateKey(key); err != nil {
		return err
	}
	t, replayed, err := a.Turns.Record(r.Context(), in, key)
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if replayed {
		status = http.StatusOK
		w.Header().Set(ReplayedHeader, "true")
	}
	return server.WriteJSON(w, status, TurnCreated{ID: t.ID, SessionID: t.SessionID, TurnNumber: t.Number})
}

// BatchResult is what became of one turn of a batch: its id, session and
// number, or its error.
type BatchResult struct {
	Index      int                 `json:"index"`
	ID         string              `json:"id,omitempty"`
	SessionID  string              `json:"session_id,omitempty"`
	TurnNumber int                 `json:"turn_number,omitempty"`
	Replayed   bool                `json:"replayed,omitempty"`
	Error      *server.ErrorDetail `json:"error,omitempty"`
}

// BatchAnswer is the answer to POST /turns/batch: one result per turn, in
// the order of the request.
type BatchAnswer struct {
	Results []BatchResult `json:"results"`
}

// createTurns records a batch of turns: a JSON array, or NDJSON (one turn
// per line). Every item is validated; the valid ones are written in one
// transaction. The answer is 200 when every turn was recorded and 207 when
// some were not, each result saying why.
func (a *API) createTurns(w http.ResponseWriter, r *http.Request) error {
	key := r.Header.Get(IdempotencyHeader)
	if err := capture.ValidateKey(key); err != nil {
		return err
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if e := server.ReadError(err); e != nil {
			return e
		}
		return err
	}
	ins, bad, err := decodeBatch(body)
	if err != nil {
		return err
	}
	if len(ins) == 0 {
		return hone.Errorf(hone.EINVALID, "the batch is empty: send a JSON array of turns, or one turn per line (NDJSON)")
	}
	for i := range bad {
		if bad[i] != nil {
			ins[i] = capture.TurnInput{}
		}
	}
	res, err := a.Turns.RecordBatch(r.Context(), ins, key)
	if err != nil {
		return err
	}
	out := BatchAnswer{Results: make([]BatchResult, len(ins))}
	status := http.StatusOK
	for i, res := range res {
		br := BatchResult{Index: i}
		err := res.Err
		if bad[i] != nil {
			err = bad[i]
		}
		if err != nil {
			d := server.Detail(err)
			br.Error, status = &d, http.StatusMultiStatus
		} else {
			br.ID, br.SessionID, br.TurnNumber, br.Replayed = res.Turn.ID, res.Turn.SessionID, res.Turn.Number, res.Replayed
		}
		out.Results[i] = br
	}
	return server.WriteJSON(w, status, out)
}

// decodeBatch reads a JSON array of turns or NDJSON. bad[i] is the error of
// item i when it could not be decoded; err is for a body that cannot be read
// as a batch at all.
func decodeBatch(body []byte) (ins []capture.TurnInput, bad []error, err error) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return decodeArray(trimmed)
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, len(body)+1)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		in := &capture.TurnInput{}
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		err := dec.Decode(&in)
		switch {
		case err == nil && dec.More():
			err = lineError(line, hone.Errorf(hone.EINVALID, "more than one JSON value on the line"))
		case err != nil:
			err = lineError(line, server.JSONError(err))
		case in == nil:
			err, in = lineError(line, errNullTurn), &capture.TurnInput{}
		}
		ins, bad = append(ins, *in), append(bad, err)
	}
	return ins, bad, sc.Err()
}

func decodeArray(body []byte) (ins []capture.TurnInput, bad []error, err error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if _, err := dec.Token(); err != nil {
		return nil, nil, server.JSONError(err)
	}
	for dec.More() {
		in := &capture.TurnInput{}
		err := dec.Decode(&in)
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, nil, hone.Errorf(hone.EINVALID, "turn %d of the batch is not valid JSON: %v", len(ins), err)
		}
		if err != nil {
			err = server.JSONError(err)
		} else if in == nil {
			err, in = errNullTurn, &capture.TurnInput{}
		}
		ins, bad = append(ins, *in), append(bad, err)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, hone.Errorf(hone.EINVALID, "the batch is not a valid JSON array: %v", err)
	}
	if dec.More() {
		return nil, nil, hone.Errorf(hone.EINVALID, "the body must hold one JSON array and nothing after it")
	}
	return ins, bad, nil
}

// errNullTurn answers a batch item that is JSON null.
var errNullTurn = hone.Errorf(hone.EINVALID, "a turn must be a JSON object, not null")

// lineError says which NDJSON line an error is on.
func lineError(line int, err error) error {
	return &hone.Error{Code: hone.ErrorCode(err), Field: hone.ErrorField(err),
		Message: fmt.Sprintf("line %d: %s", line, hone.ErrorMessage(err))}
}
