package api

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/suggestions"
	"github.com/honehq/hone/internal/timebound"
)

// Suggestions serves suggestion tracking's routes: records of what a
// suggestion model offered and what the user did, their statistics and the
// training-set exports.
type Suggestions struct {
	Suggestions *suggestions.Service
}

// Routes are suggestion tracking's routes, relative to Prefix.
func (a Suggestions) Routes() []server.Route {
	return []server.Route{
		{Method: "POST", Path: "/suggestions", Handler: a.ingestSuggestions, Accepts: batchTypes, Doc: ingestSuggestionsDoc},
		{Method: "GET", Path: "/suggestions", Handler: a.listSuggestions, Doc: listSuggestionsDoc},
		{Method: "DELETE", Path: "/suggestions", Handler: a.forgetSuggestions, Doc: forgetSuggestionSessionDoc},
		{Method: "GET", Path: "/suggestions/stats", Handler: a.suggestionStats, Doc: getSuggestionStatsDoc},
		{Method: "GET", Path: "/suggestions/export", Handler: a.exportSuggestions, Doc: exportSuggestionsDoc},
	}
}

// SuggestionList is the answer to GET /suggestions: the records as
// received.
type SuggestionList struct {
	Records []json.RawMessage `json:"records"`
}

func (a Suggestions) ingestSuggestions(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if e := server.ReadError(err); e != nil {
			return e
		}
		return err
	}
	res, err := a.Suggestions.Ingest(r.Context(), bytes.NewReader(body), r.Header.Get("Content-Type"))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, res)
}

// suggestionFilter reads a filter from the query; with records, the
// filters only records take (session, model, match_type) are read too.
// own are the endpoint's other parameters; any other is refused.
func suggestionFilter(q url.Values, records bool, own ...string) (suggestions.Filter, error) {
	var f suggestions.Filter
	names := []string{"server", "version", "since", "until"}
	if records {
		names = append(names, "session", "model", "match_type")
	}
	names = append(names, own...)
	for name := range q {
		if !contains(names, name) {
			return f, hone.FieldError(name, "unknown query parameter %q: this endpoint takes %s", name, strings.Join(names, ", "))
		}
	}
	text := func(name string) (string, error) {
		v := strings.TrimSpace(hone.CleanText(q.Get(name)))
		if hone.Chars(v) > suggestions.MaxNameLength {
			return "", hone.FieldError(name, "%s is longer than %d characters", name, suggestions.MaxNameLength)
		}
		return v, nil
	}
	var err error
	for _, p := range []struct {
		name string
		into *string
	}{{"server", &f.Server}, {"version", &f.Version}, {"session", &f.Session}, {"model", &f.Model}, {"match_type", &f.MatchType}} {
		if *p.into, err = text(p.name); err != nil {
			return f, err
		}
	}
	now := time.Now()
	if f.Since, err = timebound.Parse("since", q.Get("since"), now); err != nil {
		return f, err
	}
	if f.Until, err = timebound.Parse("until", q.Get("until"), now); err != nil {
		return f, err
	}
	return f, suggestions.CheckFilter(f)
}

func (a Suggestions) listSuggestions(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f, err := suggestionFilter(q, true, "limit")
	if err != nil {
		return err
	}
	if f.Limit, err = suggestionLimit.read(q); err != nil {
		return err
	}
	if f.Limit == 0 {
		f.Limit = suggestionLimit.def
	}
	out := SuggestionList{Records: []json.RawMessage{}}
	if err := a.Suggestions.Each(r.Context(), f, func(rec *suggestions.Record) error {
		out.Records = append(out.Records, rec.Raw)
		return nil
	}); err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, out)
}

func (a Suggestions) suggestionStats(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f, err := suggestionFilter(q, false)
	if err != nil {
		return err
	}
	st, err := a.Suggestions.Stats(r.Context(), f)
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, st)
}

func (a Suggestions) exportSuggestions(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f, err := suggestionFilter(q, true, "format", "accepted")
	if err != nil {
		return err
	}
	o := suggestions.ExportOptions{Format: strings.TrimSpace(q.Get("format")), Filter: f}
	switch v := strings.TrimSpace(q.Get("accepted")); v {
	case "", "false":
	case "true":
		o.Accepted = true
	default:
		return hone.FieldError("accepted", "accepted must be true or false, not %q", v)
	}
	if !contains(suggestions.Formats, o.Format) {
		return hone.FieldError("format", "format must be sft, ranking or dpo, not %q", o.Format)
	}
	// As a download: an error before the first line is answered as any
	// other (without the attachment's headers), one after it breaks the
	// connection rather than end the file with an error body.
	return server.Download(w, "suggestions-"+o.Format+".jsonl", "application/x-ndjson", func(w io.Writer) error {
		_, err := a.Suggestions.Export(r.Context(), w, o)
		return err
	})
}

func (a Suggestions) forgetSuggestions(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	for name := range q {
		if name != "session" && name != "server" {
			return hone.FieldError(name, "unknown query parameter %q: this endpoint takes session and server", name)
		}
	}
	// The names are cleaned as the records' are when stored (a NUL or a
	// byte that is not UTF-8 names nothing, and PostgreSQL refuses them).
	var names [2]string
	for i, name := range []string{"session", "server"} {
		v := strings.TrimSpace(hone.CleanText(q.Get(name)))
		if hone.Chars(v) > suggestions.MaxNameLength {
			return hone.FieldError(name, "%s is longer than %d characters", name, suggestions.MaxNameLength)
		}
		names[i] = v
	}
	out, err := a.Suggestions.Forget(r.Context(), names[1], names[0])
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, out)
}
