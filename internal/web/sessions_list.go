package web

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/tuning"
)

// listFilters are the sessions list's filters, sort and page as the query
// string gives them, kept as given so the page shows them again.
type listFilters struct {
	Text, Tester, Version, From, To, Min, Max, Sort, Dir string
	Down, Notes                                          bool
	Page                                                 int
}

// readListFilters reads the list's query string.
func readListFilters(r *http.Request) listFilters {
	q := r.URL.Query()
	f := listFilters{Text: q.Get("q"), Tester: q.Get("tester"), Version: q.Get("version"), From: q.Get("from"), To: q.Get("to"),
		Min: q.Get("min_score"), Max: q.Get("max_score"), Sort: q.Get("sort"), Dir: q.Get("dir"),
		Down: q.Get("down") != "", Notes: q.Get("notes") != "", Page: pageParam(r)}
	if f.Sort == "" {
		f.Sort = tuning.SortStarted
	}
	if f.Dir != "asc" {
		f.Dir = "desc"
	}
	return f
}

// values are the filters and sort as a query string, without the page.
func (f listFilters) values() url.Values {
	v := url.Values{}
	for _, p := range []struct{ k, v string }{{"q", f.Text}, {"tester", f.Tester}, {"version", f.Version}, {"from", f.From},
		{"to", f.To}, {"min_score", f.Min}, {"max_score", f.Max}} {
		if p.v != "" {
			v.Set(p.k, p.v)
		}
	}
	if f.Down {
		v.Set("down", "1")
	}
	if f.Notes {
		v.Set("notes", "1")
	}
	if f.Sort != tuning.SortStarted || f.Dir != "desc" {
		v.Set("sort", f.Sort)
		v.Set("dir", f.Dir)
	}
	return v
}

// Filtered reports whether any filter is set.
func (f listFilters) Filtered() bool {
	return f.Text != "" || f.Tester != "" || f.Version != "" || f.From != "" || f.To != "" || f.Min != "" || f.Max != "" ||
		f.Down || f.Notes
}

// DefaultSort reports whether the list is in its usual order, newest first.
func (f listFilters) DefaultSort() bool { return f.Sort == tuning.SortStarted && f.Dir == "desc" }

// Query is the filters and sort as a query string, for links that keep them.
func (f listFilters) Query() string { return f.values().Encode() }

// PageLink is the link of page n with the same filters and sort.
func (f listFilters) PageLink(n int) string {
	v := f.values()
	v.Set("page", strconv.Itoa(n))
	return "/?" + v.Encode()
}

// SortLink is the link sorting by column: the other way when it is the
// sort already, else newest or largest first (by name for text).
func (f listFilters) SortLink(column string) string {
	v := f.values()
	dir := "desc"
	if column == tuning.SortTester || column == tuning.SortVersion || column == tuning.SortID {
		dir = "asc"
	}
	if f.Sort == column {
		dir = map[string]string{"asc": "desc", "desc": "asc"}[f.Dir]
	}
	v.Set("sort", column)
	v.Set("dir", dir)
	return "/?" + v.Encode()
}

// SortMark is the arrow of the column the list is sorted by.
func (f listFilters) SortMark(column string) string {
	if f.Sort != column {
		return ""
	}
	if f.Dir == "asc" {
		return " ▲"
	}
	return " ▼"
}

// ExportLink is the download of the filtered sessions in format.
func (f listFilters) ExportLink(format string) string {
	q := f.Query()
	if q != "" {
		q = "?" + q
	}
	return "/sessions." + format + q
}

// search is the filters as a search of the tuning service, or an error
// naming the field that is wrong.
func (f listFilters) search() (tuning.SessionSearch, error) {
	q := tuning.SessionSearch{Text: f.Text, TesterID: f.Tester, PromptVersion: f.Version, HasThumbsDown: f.Down,
		HasNotes: f.Notes, Sort: f.Sort, Desc: f.Dir == "desc"}
	var err error
	if q.From, err = dateField("from", f.From); err != nil {
		return q, err
	}
	if q.Until, err = dateField("to", f.To); err != nil {
		return q, err
	}
	if !q.Until.IsZero() {
		q.Until = q.Until.AddDate(0, 0, 1)
	}
	if q.MinScore, err = scoreField("min_score", f.Min); err != nil {
		return q, err
	}
	if q.MaxScore, err = scoreField("max_score", f.Max); err != nil {
		return q, err
	}
	return q, nil
}

// dateField reads a date (YYYY-MM-DD, UTC); zero when empty.
func dateField(name, v string) (time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return t, hone.FieldError(name, "%s must be a date such as 2025-10-24, not %q", name, v)
	}
	return t, nil
}

// scoreField reads a score from 0 to 1; nil when empty.
func scoreField(name, v string) (*float64, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return nil, hone.FieldError(name, "%s must be a number from 0 to 1, not %q", name, v)
	}
	return &f, nil
}

func (u *UI) listSessions(w http.ResponseWriter, r *http.Request) error {
	f := readListFilters(r)
	data := map[string]any{"Title": "Sessions", "F": f, "Page": f.Page, "Sorts": tuning.SessionSorts}
	q, err := f.search()
	if err == nil {
		q.Offset, q.Limit = (f.Page-1)*sessionsPerPage, sessionsPerPage+1
		var list []*tuning.SessionRow
		if list, err = u.Tuning.SearchSessions(r.Context(), q); err == nil {
			more := len(list) > sessionsPerPage
			if more {
				list = list[:sessionsPerPage]
			}
			data["Sessions"], data["More"] = list, more
		}
	}
	status := http.StatusOK
	if err != nil {
		if hone.ErrorCode(err) != hone.EINVALID {
			return err
		}
		status, data["Error"] = http.StatusBadRequest, hone.ErrorMessage(err)
	}
	u.Render(w, r, status, "sessions", data)
	return nil
}

// sessionsCSVHeader are the columns of the sessions list's CSV download.
var sessionsCSVHeader = []string{"session_id", "tester_id", "tester_email", "prompt_version", "branch", "started", "ended",
	"turns", "notes", "thumbs_up", "thumbs_down", "mean_objective_score", "mean_overall_score"}

func (u *UI) exportSessionsCSV(w http.ResponseWriter, r *http.Request) error {
	list, err := u.filteredSessions(r)
	if err != nil {
		return err
	}
	return server.Download(w, "hone-sessions.csv", "text/csv; charset=utf-8", func(out io.Writer) error {
		cw := csv.NewWriter(out)
		if err := cw.Write(sessionsCSVHeader); err != nil {
			return err
		}
		for _, s := range list {
			end := ""
			if s.End != nil {
				end = s.End.UTC().Format(tuning.TimestampFormat)
			}
			if err := cw.Write([]string{s.ID, hone.SpreadsheetSafe(s.TesterID), hone.SpreadsheetSafe(s.TesterEmail),
				hone.SpreadsheetSafe(s.PromptVersion), hone.SpreadsheetSafe(s.Branch), s.Start.UTC().Format(tuning.TimestampFormat), end,
				strconv.Itoa(s.TotalTurns), strconv.Itoa(s.TotalImprovements), strconv.Itoa(s.Up), strconv.Itoa(s.Down),
				tuning.FormatScore(s.MeanObjective), tuning.FormatScore(s.MeanOverall)}); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	})
}

func (u *UI) exportSessionsJSON(w http.ResponseWriter, r *http.Request) error {
	list, err := u.filteredSessions(r)
	if err != nil {
		return err
	}
	return server.Download(w, "hone-sessions.json", "application/json", func(out io.Writer) error {
		return json.NewEncoder(out).Encode(map[string]any{"sessions": list})
	})
}

// filteredSessions are the sessions the list's filters pick, in its order,
// all pages (up to tuning.MaxSessionSearch).
func (u *UI) filteredSessions(r *http.Request) ([]*tuning.SessionRow, error) {
	q, err := readListFilters(r).search()
	if err != nil {
		return nil, err
	}
	return u.Tuning.SearchSessions(r.Context(), q)
}
