package api_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/ndjson"
	"github.com/honehq/hone/internal/suggestions"
	"github.com/honehq/hone/suggest"
)

// ingestAnswer is POST /suggestions with an NDJSON body: the status, the
// answer's bytes and, for a 200, the answer read generically (so that
// fields the Go type may lack are seen).
func (s *apiServer) ingestAnswer(body string) (int, []byte, map[string]any) {
	s.t.Helper()
	res, b := s.send("POST", "/suggestions", body, http.Header{"Content-Type": {"application/x-ndjson"}})
	var m map[string]any
	if res.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, &m); err != nil {
			s.t.Fatalf("POST /suggestions: %d %.300s: %v", res.StatusCode, b, err)
		}
	}
	return res.StatusCode, b, m
}

// lines is n copies of line, one a line.
func lines(line string, n int) string { return strings.Repeat(line+"\n", n) }

// The answer to a batch of bad records stays small: the first
// ndjson.ListedErrors errors listed, the rest counted; a batch of more than
// ndjson.MaxBatchItems records is refused whole with 413, nothing stored.
func TestSuggestionIngestBounds(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s, _ := startSuggestions(t, cfg)
		good := track(t, day0(), []round{{"local", "a", "v1", "m", 0.7, 0, threeSuggestions[0], time.Second, 1}})[0]

		// 4 MB of {} lines: far more records than a batch may hold.
		body := lines("{}", 4_000_000/3)
		status, b, _ := s.ingestAnswer(body)
		if status != http.StatusRequestEntityTooLarge || len(b) > 4096 {
			t.Fatalf("4 MB of {} lines: %d, %d bytes: %.300s", status, len(b), b)
		}
		validate(t, "ErrorBody", b)
		if e := errorOf(t, b); e.Code != "too_large" || !strings.Contains(e.Message, "10000") {
			t.Errorf("4 MB of {} lines: %s", b)
		}

		// One record more than the bound, all good: refused, nothing stored.
		var over strings.Builder
		for i := range ndjson.MaxBatchItems + 1 {
			m := recordMap(t, good)
			m["id"] = fmt.Sprint("over-", i)
			over.WriteString(mustJSON(t, m) + "\n")
		}
		if status, b, _ := s.ingestAnswer(over.String()); status != http.StatusRequestEntityTooLarge {
			t.Errorf("%d records: %d %.300s", ndjson.MaxBatchItems+1, status, b)
		}
		if n := len(s.listSuggestions("limit=1000")); n != 0 {
			t.Errorf("a refused batch stored %d records", n)
		}
		// The same as a JSON array.
		array := "[" + strings.Join(strings.Split(strings.TrimSuffix(over.String(), "\n"), "\n"), ",") + "]"
		if res, b := s.send("POST", "/suggestions", array, nil); res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("an array of %d records: %d %.300s", ndjson.MaxBatchItems+1, res.StatusCode, b)
		}
		if n := len(s.listSuggestions("limit=1000")); n != 0 {
			t.Errorf("a refused array stored %d records", n)
		}

		// Blank lines are no records: the bound counts records.
		withBlanks := strings.Repeat("\n", 50) + lines("{}", ndjson.MaxBatchItems-1) + "\n\n" + mustJSON(t, good) + "\n"
		status, b, m := s.ingestAnswer(withBlanks)
		if status != http.StatusOK {
			t.Fatalf("%d records: %d %.300s", ndjson.MaxBatchItems, status, b)
		}
		validate(t, "IngestResult", b)
		errs, _ := m["errors"].([]any)
		if len(errs) != ndjson.ListedErrors || m["errors_not_listed"] != float64(ndjson.MaxBatchItems-1-ndjson.ListedErrors) ||
			m["accepted"] != float64(1) {
			t.Errorf("%d records, all bad but the last: %d listed, %v not listed, %v accepted", ndjson.MaxBatchItems, len(errs), m["errors_not_listed"], m["accepted"])
		}
		if first, _ := errs[0].(map[string]any); first["line"] != float64(51) {
			t.Errorf("the first error: %v", errs[0])
		}
		// Each listed error is about 100 bytes: the answer is a few of them
		// per listed error, whatever the body held.
		if len(b) > 300*ndjson.ListedErrors {
			t.Errorf("the answer to %d bad records is %d bytes", ndjson.MaxBatchItems, len(b))
		}
		var res suggestions.Result
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}

		// No error past the listed ones: errors_not_listed is left out.
		status, b, m = s.ingestAnswer(lines("{}", ndjson.ListedErrors))
		if _, ok := m["errors_not_listed"]; status != http.StatusOK || ok || len(m["errors"].([]any)) != ndjson.ListedErrors {
			t.Errorf("%d bad records: %d %.300s", ndjson.ListedErrors, status, b)
		}
	})
}

// A line longer than a record may be is one error at its own line number,
// skipped whole: nothing hidden after its padding is stored, and the
// lines after it keep their numbers.
func TestSuggestionIngestOversizedLine(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s, _ := startSuggestions(t, cfg)
		recs := track(t, day0(), []round{
			{"local", "a", "v1", "m", 0.7, 0, threeSuggestions[0], time.Second, 1},
			{"local", "a", "v1", "m", 0.7, 0, threeSuggestions[0], time.Second, 1},
			{"local", "a", "v1", "m", 0.7, 0, threeSuggestions[0], time.Second, 1},
		})
		hidden := strings.Repeat(" ", suggestions.MaxRecord+1) + mustJSON(t, recs[1])
		body := mustJSON(t, recs[0]) + "\n" + hidden + "\n" + `{"ts": 1704067200, "actual_input": "x"}` + "\n" + mustJSON(t, recs[2]) + "\n"
		status, b, m := s.ingestAnswer(body)
		if status != http.StatusOK {
			t.Fatalf("%d %.300s", status, b)
		}
		validate(t, "IngestResult", b)
		var res suggestions.Result
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		if res.Accepted != 2 || !slices.Equal(lineErrors(res.Errors), []string{"2:", "3:suggestions"}) ||
			!strings.Contains(res.Errors[0].Message, fmt.Sprint(suggestions.MaxRecord)) {
			t.Errorf("answer %v", m)
		}
		if got := recordIDs(t, s.listSuggestions("")); !slices.Equal(got, idsOf(recs[0], recs[2])) {
			t.Errorf("stored %q, want the first and the last record", got)
		}
	})
}

// Items of the record's arrays are what the document says: null is no
// string and no index.
func TestSuggestionArrayItems(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s, _ := startSuggestions(t, cfg)
		base := recordMap(t, track(t, day0(), []round{{"local", "a", "v1", "m", 0.7, 0, "x", time.Second, 1}})[0])
		base["displayed_index_at_submit"] = -1
		var body []string
		for _, c := range []map[string]any{
			{"suggestions": []any{nil}, "viewed_indices": []any{}},
			{"suggestions": []any{"a", nil, "c"}},
			{"viewed_indices": []any{0, nil}},
			{"viewed_indices": []any{nil}},
		} {
			m := map[string]any{}
			for k, v := range base {
				m[k] = v
			}
			delete(m, "id")
			for k, v := range c {
				m[k] = v
			}
			body = append(body, mustJSON(t, m))
		}
		res := s.ingest(strings.Join(body, "\n"), "application/x-ndjson")
		if res.Accepted != 0 || !slices.Equal(lineErrors(res.Errors), []string{"1:suggestions", "2:suggestions", "3:viewed_indices", "4:viewed_indices"}) {
			t.Errorf("null items: %+v", res)
		}
		for _, e := range res.Errors {
			if !strings.Contains(e.Message, "null") {
				t.Errorf("line %d: %q does not say what is wrong", e.Line, e.Message)
			}
		}
		if n := len(s.listSuggestions("")); n != 0 {
			t.Errorf("%d records stored", n)
		}
	})
}

// hugeRecord stores a record whose time to action is beyond what hone now
// takes, as an older hone stored it, with its rollups.
func hugeRecord(t *testing.T, s *apiServer, ms float64) {
	t.Helper()
	raw := recordMap(t, track(t, day0(), []round{{"local", "old", "v1", "m", 0.7, 0, "typed", time.Second, 1}})[0])
	raw["time_to_action_ms"] = 1.0
	r, err := suggestions.Parse([]byte(mustJSON(t, raw)))
	if err != nil {
		t.Fatal(err)
	}
	r.TimeToActionMS = ms
	if _, err := s.app.DB.Suggestions().Add(t.Context(), []*suggestions.Record{r}, func(added []*suggestions.Record) []suggestions.Rollup {
		return suggestions.Rollups(added, 1)
	}); err != nil {
		t.Fatal(err)
	}
}

// A time to action is bounded where it enters, and the statistics answer
// whatever was stored before the bound.
func TestSuggestionTimeToActionBound(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s, _ := startSuggestions(t, cfg)
		bound, _ := resolve(confDoc(t), "/components/schemas/SuggestionRecord/properties/time_to_action_ms/maximum").(float64)
		if bound <= 0 || bound > 1e15 {
			t.Errorf("the document bounds time_to_action_ms at %g: not a sane number of milliseconds", bound)
		}
		recs := track(t, day0(), []round{
			{"local", "a", "v1", "m", 0.7, 0, threeSuggestions[0], time.Second, 1},
			{"local", "a", "v1", "m", 0.7, 0, threeSuggestions[0], time.Second, 1},
		})
		at := func(r *suggest.Record, ms any) string {
			m := recordMap(t, r)
			m["time_to_action_ms"] = ms
			return mustJSON(t, m)
		}
		res := s.ingest(at(recs[0], raw("1e308"))+"\n"+at(recs[1], bound)+"\n", "application/x-ndjson")
		if res.Accepted != 1 || !slices.Equal(lineErrors(res.Errors), []string{"1:time_to_action_ms"}) ||
			!strings.Contains(res.Errors[0].Message, strconv.FormatFloat(bound, 'f', -1, 64)) {
			t.Errorf("1e308 and the document's bound %g: %+v", bound, res)
		}
		for _, ms := range []float64{1e308, math.MaxFloat64, 1e300} {
			hugeRecord(t, s, ms)
			st := s.suggestionStats("")
			p := st.TimeToActionMS
			for _, v := range []float64{p.P50, p.P90, p.P99} {
				if math.IsInf(v, 0) || math.IsNaN(v) || v < 0 {
					t.Errorf("after a stored %g: percentiles %+v", ms, p)
				}
			}
			if p.P99 < bound {
				t.Errorf("after a stored %g: p99 %g", ms, p.P99)
			}
		}
	})
}

// An export carries every record's id, the ones hone made too.
func TestSuggestionExportDerivedIDs(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s, _ := startSuggestions(t, cfg)
		r := track(t, day0(), []round{{"local", "a", "v1", "m", 0.7, 1, threeSuggestions[1], time.Second, 1}})[0]
		m := recordMap(t, r)
		delete(m, "id")
		line := mustJSON(t, m)
		want, err := suggestions.Parse([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if res := s.ingest(line+"\n", "application/x-ndjson"); res.Accepted != 1 {
			t.Fatalf("ingest %+v", res)
		}
		ranking := exportLines[rankingLine](s, "format=ranking")
		dpo := exportLines[dpoLine](s, "format=dpo")
		if len(ranking) != 1 || ranking[0].ID != want.ID || len(dpo) != 1 || dpo[0].ID != want.ID {
			t.Errorf("ranking %+v, dpo %+v: want the id %q", ranking, dpo, want.ID)
		}
	})
}

// writeHistory writes records of (server, session) pairs with the suggest
// library's JSONL sink under root.
func writeHistory(t *testing.T, root string, names ...[2]string) {
	t.Helper()
	sink, err := suggest.NewJSONL(suggest.JSONLOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		tr := suggest.NewTracker(suggest.Options{Server: n[0], Session: n[1], Sink: sink})
		tr.Fetched(map[string]any{}, threeSuggestions, nil, nil, "v1")
		tr.Submit("typed", nil)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
}

// sessionsOnDisk are the "server/session" of every record of the history
// under root.
func sessionsOnDisk(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	if _, err := suggest.Walk(root, func(_ string, _ int, r *suggest.Record) error {
		out = append(out, r.Server+"/"+r.Session)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// Forgetting a session deletes its history and nothing else: no link is
// followed out of the history root, and names that differ never share a
// folder.
func TestSuggestionForgetHistory(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s, root := startSuggestions(t, cfg)
		forget := func(query string) suggestions.Forgotten {
			t.Helper()
			var f suggestions.Forgotten
			s.json("DELETE", "/suggestions?"+query, "", http.StatusOK, "Forgotten", &f)
			return f
		}

		// Names the old mapping merged: a/b and a_b, .. and _, A and a.
		writeHistory(t, root, [2]string{"local", "a/b"}, [2]string{"local", "a_b"}, [2]string{"local", ".."}, [2]string{"local", "_"},
			[2]string{"local", "Proj"}, [2]string{"local", "proj"}, [2]string{"x/y", "s"}, [2]string{"x_y", "s"})
		forget("session=a_b")
		forget("session=_")
		forget("session=proj")
		forget("session=s&server=x_y")
		if got, want := sessionsOnDisk(t, root), []string{"local/..", "local/Proj", "local/a/b", "x/y/s"}; !slices.Equal(got, want) {
			t.Errorf("left on disk %q, want %q", got, want)
		}
		if f := forget("session=.."); len(f.Directories) != 1 || !strings.HasPrefix(f.Directories[0], root) {
			t.Errorf("forget ..: %+v", f)
		}
		if got := sessionsOnDisk(t, root); slices.Contains(got, "local/..") {
			t.Errorf("the history of .. is still there: %q", got)
		}

		// A server folder that is a link out of the root, and a session
		// folder that is one.
		outside := t.TempDir()
		for _, d := range []string{"b", "c"} {
			if err := os.MkdirAll(filepath.Join(outside, d), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(outside, d, suggest.HistoryFile), []byte("{}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(outside, filepath.Join(root, "linked")); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(root, "srv"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(outside, "c"), filepath.Join(root, "srv", "c")); err != nil {
			t.Fatal(err)
		}
		forget("session=b")
		forget("session=b&server=linked")
		forget("session=c")
		forget("session=c&server=srv")
		for _, d := range []string{"b", "c"} {
			if _, err := os.Stat(filepath.Join(outside, d, suggest.HistoryFile)); err != nil {
				t.Errorf("forget deleted outside the history root: %v", err)
			}
		}
	})
}

// Histories written with the old mapping are forgotten too: a folder only
// the session wrote is deleted, and one it shared with another session
// keeps the other's lines.
func TestSuggestionForgetOldHistories(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s, root := startSuggestions(t, cfg)
		line := func(server, session, id string) string {
			r := track(t, day0(), []round{{server, session, "v1", "m", 0.7, 0, "typed", time.Second, 1}})[0]
			r.ID = id
			return mustJSON(t, r) + "\n"
		}
		write := func(dir string, text string) {
			if err := os.MkdirAll(filepath.Join(root, dir), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, dir, suggest.HistoryFile), []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		// Before: a/b and a_b shared local/a_b; My Project had local/My Project.
		one, two, three := line("local", "a/b", "1"), line("local", "a_b", "2"), line("local", "a/b", "3")
		write("local/a_b", one+two+three)
		write("local/My Project", line("local", "My Project", "4"))
		var f suggestions.Forgotten
		s.json("DELETE", "/suggestions?session=a_b", "", http.StatusOK, "Forgotten", &f)
		b, err := os.ReadFile(filepath.Join(root, "local/a_b", suggest.HistoryFile))
		if err != nil || string(b) != one+three {
			t.Errorf("the shared folder after forgetting a_b: %q %v", b, err)
		}
		s.json("DELETE", "/suggestions?session=My%20Project", "", http.StatusOK, "Forgotten", &f)
		if _, err := os.Stat(filepath.Join(root, "local/My Project")); !os.IsNotExist(err) || len(f.Directories) != 1 {
			t.Errorf("the old folder of My Project: %v, %+v", err, f)
		}
	})
}
