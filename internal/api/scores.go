package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/ndjson"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/server"
)

// Scores serves the score capability's routes: score configs, and the
// scores every judgment is recorded as.
type Scores struct {
	Scores *score.Service
	// Now is the time spans such as since=7d count back from; time.Now
	// when nil.
	Now func() time.Time
}

// Routes are the score capability's routes, relative to Prefix.
func (a Scores) Routes() []server.Route {
	return []server.Route{
		{Method: "GET", Path: "/score-configs", Handler: a.listConfigs, Doc: listScoreConfigsDoc},
		{Method: "POST", Path: "/score-configs", Handler: a.addConfig, Doc: addScoreConfigDoc},
		{Method: "GET", Path: "/score-configs/{id}", Handler: a.getConfig, Doc: getScoreConfigDoc},
		{Method: "PATCH", Path: "/score-configs/{id}", Handler: a.updateConfig, Doc: updateScoreConfigDoc},
		{Method: "POST", Path: "/scores", Handler: a.recordScores, Accepts: scoreTypes, Doc: recordScoresDoc},
		{Method: "GET", Path: "/scores", Handler: a.listScores, Doc: listScoresDoc},
		{Method: "GET", Path: "/scores/export", Handler: a.exportScores, Doc: exportScoresDoc},
		{Method: "GET", Path: "/scores/{id}", Handler: a.getScore, Doc: getScoreDoc},
		{Method: "DELETE", Path: "/scores/{id}", Handler: a.deleteScore, Doc: deleteScoreDoc},
	}
}

// scoreTypes are the media types POST /scores takes: JSON (an object or
// an array), or NDJSON.
var scoreTypes = append([]string{server.JSONType}, server.NDJSONTypes...)

// ScoreConfigList is the answer to GET /score-configs.
type ScoreConfigList struct {
	Configs []*score.Config `json:"configs"`
}

func (a Scores) listConfigs(w http.ResponseWriter, r *http.Request) error {
	archived, err := flagParam(r.URL.Query().Get("archived"), "archived")
	if err != nil {
		return err
	}
	list, err := a.Scores.Configs(r.Context(), archived)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, ScoreConfigList{Configs: list})
}

// flagParam reads a true/false query parameter; empty is false.
func flagParam(v, name string) (bool, error) {
	switch v {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, hone.FieldError(name, "%s must be true or false, not %q", name, v)
}

func (a Scores) addConfig(w http.ResponseWriter, r *http.Request) error {
	var in score.ConfigInput
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	c, err := a.Scores.AddConfig(r.Context(), in)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusCreated, c)
}

func (a Scores) getConfig(w http.ResponseWriter, r *http.Request) error {
	c, err := a.Scores.Config(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, c)
}

// updateConfig reads the body before it looks the config up, so that a
// slow body is 408 whatever the id.
func (a Scores) updateConfig(w http.ResponseWriter, r *http.Request) error {
	body, err := fullBody(r)
	if err != nil {
		return err
	}
	if _, err := a.Scores.Config(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var u score.ConfigUpdate
	if err := server.DecodeJSON(r, &u); err != nil {
		return err
	}
	c, err := a.Scores.UpdateConfig(r.Context(), r.PathValue("id"), u)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, c)
}

// fullBody reads a request's whole body, within the face's limits.
func fullBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if e := server.ReadError(err); e != nil {
			return nil, e
		}
		return nil, err
	}
	return body, nil
}

// RecordedScore is what became of one score of a batch: its id, its
// config's data type and when it was recorded, or its error.
type RecordedScore struct {
	Index     int                 `json:"index"`
	ID        string              `json:"id,omitempty"`
	DataType  string              `json:"data_type,omitempty"`
	CreatedAt *time.Time          `json:"created_at,omitempty"`
	Replayed  bool                `json:"replayed,omitempty"`
	Error     *server.ErrorDetail `json:"error,omitempty"`
}

// ScoreBatchAnswer is the answer to a batch of scores: a result per
// recorded score and per listed error, in the order of the request. Only
// the first ndjson.ListedErrors errors are listed; ErrorsNotListed counts
// the others, whose scores are the indexes missing from Results.
type ScoreBatchAnswer struct {
	Results         []RecordedScore `json:"results"`
	ErrorsNotListed int             `json:"errors_not_listed,omitempty"`
}

// recordScores records one score (a JSON object: 201 with the score, 200
// when it was recorded before under its id), or a batch (a JSON array, or
// NDJSON) of at most ndjson.MaxBatchItems: 200 when every score was
// recorded, 207 when some were not.
func (a Scores) recordScores(w http.ResponseWriter, r *http.Request) error {
	body, err := fullBody(r)
	if err != nil {
		return err
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	lines := slices.Contains(server.NDJSONTypes, mt)
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if !lines && (len(trimmed) == 0 || trimmed[0] != '[') {
		r.Body = io.NopCloser(bytes.NewReader(body))
		var in score.Input
		if err := server.DecodeJSON(r, &in); err != nil {
			return err
		}
		s, replayed, err := a.Scores.Record(r.Context(), in)
		if err != nil {
			return err
		}
		status := http.StatusCreated
		if replayed {
			status = http.StatusOK
			w.Header().Set(ReplayedHeader, "true")
		}
		return server.WriteJSON(w, status, s)
	}
	var ins []score.Input
	var bad []error
	if lines {
		ins, bad, err = decodeLines[score.Input](body, "score")
	} else {
		ins, bad, err = decodeItems[score.Input](trimmed, "score")
	}
	if err != nil {
		return err
	}
	if len(ins) == 0 {
		return hone.Errorf(hone.EINVALID, "the batch is empty: send a JSON array of scores, or one score per line (NDJSON)")
	}
	var good []score.Input
	for i := range ins {
		if bad[i] == nil {
			good = append(good, ins[i])
		}
	}
	recorded, err := a.Scores.RecordBatch(r.Context(), good)
	if err != nil {
		return err
	}
	out := ScoreBatchAnswer{Results: make([]RecordedScore, 0, len(ins))}
	var errs batchErrors
	for i := range ins {
		var res score.Result
		err := bad[i]
		if err == nil {
			res, recorded = recorded[0], recorded[1:]
			err = res.Err
		}
		sr := RecordedScore{Index: i}
		if err == nil {
			at := res.Score.CreatedAt
			sr.ID, sr.DataType, sr.CreatedAt, sr.Replayed = res.Score.ID, res.Score.DataType, &at, res.Replayed
		} else if sr.Error = errs.add(err); sr.Error == nil {
			continue
		}
		out.Results = append(out.Results, sr)
	}
	out.ErrorsNotListed = errs.notListed
	return server.WriteJSON(w, errs.status(), out)
}

// tooMany refuses a batch of more items than one request may carry.
func tooMany(what string) error {
	return hone.Errorf(hone.ETOOLARGE, "the batch holds more than %d %ss, the most one request may carry: split it", ndjson.MaxBatchItems, what)
}

// decodeLines reads NDJSON items of type T, one a line. bad[i] is the error
// of item i when it could not be decoded; err is for a body that cannot be
// read as a batch, or holds more than ndjson.MaxBatchItems items.
func decodeLines[T any](body []byte, what string) (ins []T, bad []error, err error) {
	rd := ndjson.NewReader(bytes.NewReader(body), len(body))
	for {
		line, text, err := rd.Next()
		if err == io.EOF {
			return ins, bad, nil
		}
		if len(ins) == ndjson.MaxBatchItems {
			return nil, nil, tooMany(what)
		}
		in := new(T)
		if err != nil {
			return nil, nil, err
		}
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		err = dec.Decode(&in)
		switch {
		case err == nil && dec.More():
			err = onLine(line, hone.Errorf(hone.EINVALID, "more than one JSON value on the line"))
		case err != nil:
			err = onLine(line, server.JSONError(err))
		case in == nil:
			err, in = onLine(line, hone.Errorf(hone.EINVALID, "a %s must be a JSON object, not null", what)), new(T)
		}
		ins, bad = append(ins, *in), append(bad, err)
	}
}

// onLine says which NDJSON line an error is on.
func onLine(line int, err error) error {
	return &hone.Error{Code: hone.ErrorCode(err), Field: hone.ErrorField(err),
		Message: fmt.Sprintf("line %d: %s", line, hone.ErrorMessage(err))}
}

// decodeItems reads a JSON array of items of type T, as decodeLines does.
func decodeItems[T any](body []byte, what string) (ins []T, bad []error, err error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if _, err := dec.Token(); err != nil {
		return nil, nil, server.JSONError(err)
	}
	for dec.More() {
		if len(ins) == ndjson.MaxBatchItems {
			return nil, nil, tooMany(what)
		}
		in := new(T)
		err := dec.Decode(&in)
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, nil, hone.Errorf(hone.EINVALID, "%s %d of the batch is not valid JSON: %v", what, len(ins), err)
		}
		if err != nil {
			err = server.JSONError(err)
		} else if in == nil {
			err, in = hone.Errorf(hone.EINVALID, "a %s must be a JSON object, not null", what), new(T)
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

// query reads the score query parameters of r.
func (a Scores) query(r *http.Request) (score.Query, error) {
	q := r.URL.Query()
	sq := score.Query{TurnID: q.Get("turn_id"), WorkshopID: q.Get("workshop_id"), TraceID: q.Get("trace_id"),
		Config: q.Get("config"), Source: q.Get("source"), Author: q.Get("author"), PromptVersion: q.Get("prompt_version"),
		Since: q.Get("since"), Until: q.Get("until")}
	var err error
	if sq.Limit, err = scoreLimit.read(q); err != nil {
		return sq, err
	}
	if sq.Offset, err = scoreOffset.read(q); err != nil {
		return sq, err
	}
	return sq, nil
}

func (a Scores) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

func (a Scores) listScores(w http.ResponseWriter, r *http.Request) error {
	q, err := a.query(r)
	if err != nil {
		return err
	}
	p, err := a.Scores.List(r.Context(), q, a.now())
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, p)
}

func (a Scores) exportScores(w http.ResponseWriter, r *http.Request) error {
	format := r.URL.Query().Get("format")
	if format == "" {
		format = score.FormatJSONL
	}
	if !slices.Contains(score.Formats, format) {
		return hone.FieldError("format", "format must be jsonl or csv, not %q", format)
	}
	q, err := a.query(r)
	if err != nil {
		return err
	}
	f, err := a.Scores.Filter(r.Context(), q, a.now())
	if err != nil {
		return err
	}
	contentType := "application/x-ndjson"
	if format == score.FormatCSV {
		contentType = "text/csv; charset=utf-8"
	}
	return server.Download(w, "scores."+format, contentType, func(w io.Writer) error {
		return a.Scores.Export(r.Context(), f, format, w)
	})
}

func (a Scores) getScore(w http.ResponseWriter, r *http.Request) error {
	s, err := a.Scores.Score(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, s)
}

func (a Scores) deleteScore(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.Scores.Delete(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
