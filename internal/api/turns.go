package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/ndjson"
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
	body, err := readTurnsBody(r)
	if err != nil {
		return err
	}
	var in capture.TurnInput
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err := server.DecodeJSON(r, &in); err != nil {
		return capture.Explain(body, err)
	}
	key := r.Header.Get(IdempotencyHeader)
	if err := capture.ValidateKey(key); err != nil {
		return err
	}
	t, replayed, err := a.Turns.From(capture.SourceAPI).Record(r.Context(), in, key)
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

// BatchAnswer is the answer to POST /turns/batch: a result per recorded
// turn and per listed error, in the order of the request. Only the first
// ndjson.ListedErrors errors are listed; ErrorsNotListed counts the others,
// whose turns are the indexes missing from Results.
type BatchAnswer struct {
	Results         []BatchResult `json:"results"`
	ErrorsNotListed int           `json:"errors_not_listed,omitempty"`
}

// createTurns records a batch of turns: a JSON array, or NDJSON (one turn
// per line), of at most ndjson.MaxBatchItems turns. Every item is
// validated; the valid ones are written in one transaction. The answer is
// 200 when every turn was recorded and 207 when some were not, each listed
// error saying why.
func (a *API) createTurns(w http.ResponseWriter, r *http.Request) error {
	key := r.Header.Get(IdempotencyHeader)
	if err := capture.ValidateKey(key); err != nil {
		return err
	}
	body, err := readTurnsBody(r)
	if err != nil {
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
	res, err := a.Turns.From(capture.SourceAPI).RecordBatch(r.Context(), ins, key)
	if err != nil {
		return err
	}
	out := BatchAnswer{Results: make([]BatchResult, 0, len(ins))}
	var errs batchErrors
	for i, res := range res {
		br := BatchResult{Index: i}
		err := res.Err
		if bad[i] != nil {
			err = bad[i]
		}
		if err == nil {
			br.ID, br.SessionID, br.TurnNumber, br.Replayed = res.Turn.ID, res.Turn.SessionID, res.Turn.Number, res.Replayed
		} else if br.Error = errs.add(err); br.Error == nil {
			continue
		}
		out.Results = append(out.Results, br)
	}
	out.ErrorsNotListed = errs.notListed
	return server.WriteJSON(w, errs.status(), out)
}

// readTurnsBody reads the whole body of r.
func readTurnsBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if e := server.ReadError(err); e != nil {
			return nil, e
		}
		return nil, err
	}
	return body, nil
}

// errTooManyTurns refuses a batch of more turns than one request may carry.
var errTooManyTurns = hone.Errorf(hone.ETOOLARGE, "the batch holds more than %d turns, the most one request may carry: split it", ndjson.MaxBatchItems)

// decodeBatch reads a JSON array of turns or NDJSON. bad[i] is the error of
// item i when it could not be decoded; err is for a body that cannot be read
// as a batch at all, or holds more than ndjson.MaxBatchItems turns.
func decodeBatch(body []byte) (ins []capture.TurnInput, bad []error, err error) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return decodeArray(trimmed)
	}
	rd := ndjson.NewReader(bytes.NewReader(body), len(body))
	for {
		line, text, err := rd.Next()
		if err == io.EOF {
			return ins, bad, nil
		}
		if len(ins) == ndjson.MaxBatchItems {
			return nil, nil, errTooManyTurns
		}
		in := &capture.TurnInput{}
		switch {
		case hone.ErrorCode(err) == hone.ETOOLARGE:
		case err != nil:
			return nil, nil, err
		default:
			dec := json.NewDecoder(bytes.NewReader(text))
			dec.DisallowUnknownFields()
			err = dec.Decode(&in)
			switch {
			case err == nil && dec.More():
				err = lineError(line, hone.Errorf(hone.EINVALID, "more than one JSON value on the line"))
			case err != nil:
				err = lineError(line, capture.Explain(text, server.JSONError(err)))
			case in == nil:
				err, in = lineError(line, errNullTurn), &capture.TurnInput{}
			}
		}
		ins, bad = append(ins, *in), append(bad, err)
	}
}

func decodeArray(body []byte) (ins []capture.TurnInput, bad []error, err error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if _, err := dec.Token(); err != nil {
		return nil, nil, server.JSONError(err)
	}
	for dec.More() {
		if len(ins) == ndjson.MaxBatchItems {
			return nil, nil, errTooManyTurns
		}
		in := &capture.TurnInput{}
		start := dec.InputOffset()
		err := dec.Decode(&in)
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, nil, hone.Errorf(hone.EINVALID, "turn %d of the batch is not valid JSON: %v", len(ins), err)
		}
		if err != nil {
			item := bytes.TrimLeft(body[start:dec.InputOffset()], ", \t\r\n")
			err = capture.Explain(item, server.JSONError(err))
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
