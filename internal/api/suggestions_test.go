package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/ndjson"
	"github.com/honehq/hone/internal/suggestions"
	"github.com/honehq/hone/internal/tuning"
	"github.com/honehq/hone/suggest"
)

// startSuggestions starts hone with its suggestion history in a directory
// of the test's own (never the user's ~/.hone), and returns the server and
// that directory.
func startSuggestions(t *testing.T, cfg config.Config) (*apiServer, string) {
	t.Helper()
	cfg.SuggestionRoot = t.TempDir()
	return start(t, cfg), cfg.SuggestionRoot
}

// round is one round of suggestions to record with the suggest library.
type round struct {
	server, session, version string
	model                    string
	temperature              float64
	steps                    int // Next presses
	input                    string
	think                    time.Duration
	blocks                   int
}

var threeSuggestions = []string{"@claude explain this error", "@bash cat logs.txt", "@python debug.py"}

// systemMessage starts the request messages of every round.
var systemMessage = map[string]any{"role": "system", "content": "You suggest the next command."}

// track records the rounds with the suggest library on a fake clock that
// starts at start and moves a minute after each round; each round's request
// carries two messages, the second naming the round.
func track(t testing.TB, start time.Time, rounds []round) []*suggest.Record {
	t.Helper()
	clock := start
	var out []*suggest.Record
	for i, r := range rounds {
		tr := suggest.NewTracker(suggest.Options{Server: r.server, Session: r.session, Now: func() time.Time { return clock }})
		blocks := make([]any, r.blocks)
		for j := range blocks {
			blocks[j] = map[string]any{"input": "x", "output": "y", "success": true}
		}
		tr.Fetching(i)
		tr.Fetched(map[string]any{"blocks": blocks, "cwd": "/p"}, threeSuggestions,
			map[string]any{"model": r.model, "temperature": r.temperature,
				"messages": []any{systemMessage, map[string]any{"role": "user", "content": fmt.Sprint("round ", i)}}},
			map[string]any{"usage": map[string]any{"total_tokens": 150}}, r.version)
		for range r.steps {
			tr.Next()
		}
		clock = clock.Add(r.think)
		rec := tr.Submit(r.input, nil)
		if rec == nil {
			t.Fatal("the tracker made no record")
		}
		out = append(out, rec)
		clock = clock.Add(time.Minute)
	}
	return out
}

func ndjsonOf(t testing.TB, recs []*suggest.Record) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// day0 is midnight UTC five days ago: the first day of the sample rounds.
func day0() time.Time {
	return time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -5)
}

// sampleRounds are ten rounds: on day0, v1 on server local, four exact on
// the first suggestion (session a), two prefix of the second after seeing
// the first (a), two typed by hand after long thought and six presses (b);
// four days later, v2 on server prod (session c), one partial on the first
// and one exact on the third after seeing all three.
func sampleRounds(t testing.TB) []*suggest.Record {
	var v1, v2 []round
	for range 4 {
		v1 = append(v1, round{"local", "a", "v1", "gpt-4o-mini", 0.7, 0, threeSuggestions[0], time.Second, 2})
	}
	for range 2 {
		v1 = append(v1, round{"local", "a", "v1", "gpt-4o-mini", 0.7, 1, "@bash cat", 2 * time.Second, 5})
	}
	for range 2 {
		v1 = append(v1, round{"local", "b", "v1", "gpt-4o-mini", 0.7, 6, "rm -rf build", 20 * time.Second, 0})
	}
	v2 = append(v2, round{"prod", "c", "v2", "gpt-4o", 0.2, 0, threeSuggestions[0] + " now", 500 * time.Millisecond, 25},
		round{"prod", "c", "v2", "gpt-4o", 0.2, 2, threeSuggestions[2], 3 * time.Second, 25})
	return append(track(t, day0(), v1), track(t, day0().AddDate(0, 0, 4), v2)...)
}

// ingest posts body with the content type and requires 200 with an
// IngestResult.
func (s *apiServer) ingest(body, contentType string) suggestions.Result {
	s.t.Helper()
	res, b := s.send("POST", "/suggestions", body, http.Header{"Content-Type": {contentType}})
	if res.StatusCode != http.StatusOK {
		s.t.Fatalf("POST /suggestions (%s): %d %s", contentType, res.StatusCode, b)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		s.t.Errorf("POST /suggestions: Content-Type %q", ct)
	}
	validate(s.t, "IngestResult", b)
	var out suggestions.Result
	if err := json.Unmarshal(b, &out); err != nil {
		s.t.Fatal(err)
	}
	return out
}

// lineErrors are errors as "line:field" for comparison.
func lineErrors(errs []suggestions.LineError) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, fmt.Sprintf("%d:%s", e.Line, e.Field))
	}
	return out
}

// listSuggestions is GET /suggestions with the query.
func (s *apiServer) listSuggestions(query string) []json.RawMessage {
	s.t.Helper()
	var out api.SuggestionList
	s.json("GET", "/suggestions?"+query, "", http.StatusOK, "SuggestionList", &out)
	return out.Records
}

// recordIDs are the ids of raw records.
func recordIDs(t *testing.T, raws []json.RawMessage) []string {
	t.Helper()
	ids := []string{}
	for _, r := range raws {
		var v struct{ ID string }
		if err := json.Unmarshal(r, &v); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, v.ID)
	}
	return ids
}

func idsOf(recs ...*suggest.Record) []string {
	ids := []string{}
	for _, r := range recs {
		ids = append(ids, r.ID)
	}
	return ids
}

func (s *apiServer) suggestionStats(query string) *suggestions.Stats {
	s.t.Helper()
	var out suggestions.Stats
	s.json("GET", "/suggestions/stats?"+query, "", http.StatusOK, "SuggestionStats", &out)
	return &out
}

// recordMap is a record as a JSON object, to edit.
func recordMap(t *testing.T, r *suggest.Record) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(mustJSON(t, r)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSuggestionIngest(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s, _ := startSuggestions(t, cfg)
		recs := track(t, day0(), []round{
			{"local", "a", "v1", "gpt-4o-mini", 0.7, 0, threeSuggestions[0], time.Second, 2},
			{"local", "a", "v1", "gpt-4o-mini", 0.7, 1, "@bash cat", time.Second, 2},
			{"local", "a", "v1", "gpt-4o-mini", 0.7, 0, "ls", time.Second, 2},
			{"local", "a", "v1", "gpt-4o-mini", 0.7, 0, "pwd", time.Second, 2},
			{"local", "a", "v1", "gpt-4o-mini", 0.7, 0, "make", time.Second, 2},
			{"local", "a", "v1", "gpt-4o-mini", 0.7, 0, "make test", time.Second, 2},
		})
		edit := func(r *suggest.Record, changes map[string]any) string {
			m := recordMap(t, r)
			for k, v := range changes {
				if v == nil {
					delete(m, k)
				} else {
					m[k] = v
				}
			}
			return mustJSON(t, m)
		}
		line := func(r *suggest.Record) string { return mustJSON(t, r) }
		noID := edit(recs[2], map[string]any{"id": nil})
		lines := []string{
			line(recs[0]), // 1
			"",            // 2: blank, skipped but counted
			`{"ts": 1704067200, "actual_input": "x"}`, // 3: no suggestions
			line(recs[1]), // 4
			`{torn`,       // 5: not JSON
			edit(recs[3], map[string]any{"accepted_index": 5, "match_type": "exact"}), // 6
			edit(recs[3], map[string]any{"llm_request": map[string]any{"model": 5}}),  // 7
			`[1]`, // 8: not an object
			edit(recs[3], map[string]any{"id": " \t"}), // 9
			noID,                                    // 10: hone makes the id
			"  " + noID + "\r",                      // 11: the same record again: a duplicate
			edit(recs[3], map[string]any{"ts": -1}), // 12
			edit(recs[3], map[string]any{"context": "x"}),                                      // 13
			edit(recs[3], map[string]any{"match_type": "none", "accepted_index": 0}),           // 14
			edit(recs[3], map[string]any{"viewed_indices": []int{0, 3}}),                       // 15
			edit(recs[3], map[string]any{"cycle_count": -1}),                                   // 16
			edit(recs[3], map[string]any{"session": strings.Repeat("é", 201)}),                 // 17
			edit(recs[3], map[string]any{"suggestion_node_version": strings.Repeat("é", 200)}), // 18: the limit, kept
		}
		body := strings.Join(lines, "\n") + "\n"
		wantErrors := []string{"3:suggestions", "5:", "6:accepted_index", "7:llm_request.model", "8:", "9:id", "12:ts", "13:context",
			"14:accepted_index", "15:viewed_indices", "16:cycle_count", "17:session"}
		res := s.ingest(body, "application/x-ndjson")
		if res.Accepted != 4 || res.Duplicates != 1 || !slices.Equal(lineErrors(res.Errors), wantErrors) {
			t.Fatalf("ingest: %+v; want 4 accepted, 1 duplicate and errors %v, got %v", res, wantErrors, lineErrors(res.Errors))
		}
		for _, e := range res.Errors {
			if strings.TrimSpace(e.Message) == "" || !strings.HasPrefix(e.Message, e.Field) {
				t.Errorf("line %d: the message %q does not start with the field %q", e.Line, e.Message, e.Field)
			}
		}
		// Again: every good record is a duplicate now, the bad lines the same.
		res = s.ingest(body, "application/x-ndjson; charset=utf-8")
		if res.Accepted != 0 || res.Duplicates != 5 || !slices.Equal(lineErrors(res.Errors), wantErrors) {
			t.Errorf("ingesting again: %+v", res)
		}
		stored := s.listSuggestions("")
		if len(stored) != 4 {
			t.Fatalf("%d records stored, want 4", len(stored))
		}
		// The records as received, every field; the one without an id
		// keeps none (hone's id is its own).
		if !jsonEqual(t, stored[0], line(recs[0])) || !jsonEqual(t, stored[1], line(recs[1])) || !jsonEqual(t, stored[2], noID) {
			t.Errorf("the records are not as sent:\n%s\n%s\n%s", stored[0], stored[1], stored[2])
		}
		if ids := recordIDs(t, stored); !slices.Equal(ids[:2], idsOf(recs[0], recs[1])) || ids[2] != "" || ids[3] != recs[3].ID {
			t.Errorf("ids %q", ids)
		}

		// An array: each element is a line.
		res = s.ingest("["+line(recs[4])+","+edit(recs[5], map[string]any{"match_type": "bogus"})+","+line(recs[0])+"]", "application/json")
		if res.Accepted != 1 || res.Duplicates != 1 || !slices.Equal(lineErrors(res.Errors), []string{"2:match_type"}) {
			t.Errorf("array: %+v", res)
		}
		// An empty array stores nothing and is no error.
		if res := s.ingest(" [] ", "application/json"); res.Accepted != 0 || res.Duplicates != 0 || len(res.Errors) != 0 {
			t.Errorf("empty array: %+v", res)
		}
		// One object, good and bad; a body of another media type is refused.
		if res, b := s.send("POST", "/suggestions", line(recs[5]), http.Header{"Content-Type": {"text/plain"}}); res.StatusCode != http.StatusUnsupportedMediaType {
			t.Errorf("a text/plain record: %d %s", res.StatusCode, b)
		}
		if res := s.ingest(line(recs[5]), "application/json"); res.Accepted != 1 || len(res.Errors) != 0 {
			t.Errorf("one record: %+v", res)
		}
		if res := s.ingest(edit(recs[5], map[string]any{"actual_input": nil}), "application/json"); res.Accepted != 0 ||
			!slices.Equal(lineErrors(res.Errors), []string{"1:actual_input"}) {
			t.Errorf("one bad record: %+v", res)
		}
		// Two records without the NDJSON content type are one bad record.
		if res := s.ingest(line(recs[0])+"\n"+line(recs[1]), "application/json"); res.Accepted != 0 || res.Duplicates != 0 ||
			!slices.Equal(lineErrors(res.Errors), []string{"1:"}) {
			t.Errorf("NDJSON as JSON: %+v", res)
		}
		// NDJSON's other names, and a line that is no JSON at all.
		if res := s.ingest(edit(recs[5], map[string]any{"id": "other-name"})+"\nhello\n", "application/jsonl"); res.Accepted != 1 ||
			!slices.Equal(lineErrors(res.Errors), []string{"2:"}) {
			t.Errorf("application/jsonl: %+v", res)
		}
		if n := len(s.listSuggestions("limit=1000")); n != 7 {
			t.Errorf("%d records stored, want 7", n)
		}

		// A body that is no record, array or NDJSON at all is a 400.
		for _, body := range []string{"hello", "", "  ", `"x"`, "null", "1", "[1,", `[{"ts": 1}] x`} {
			res, b := s.call("POST", "/suggestions", body)
			if res.StatusCode != http.StatusBadRequest {
				t.Errorf("body %q: %d %s", body, res.StatusCode, b)
				continue
			}
			validate(t, "ErrorBody", b)
			if e := errorOf(t, b); e.Code != "invalid" || e.Field != "" {
				t.Errorf("body %q: %s", body, b)
			}
		}
		if n := len(s.listSuggestions("limit=1000")); n != 7 {
			t.Errorf("the refused bodies stored something: %d records", n)
		}
	})
}

func TestSuggestionList(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s, _ := startSuggestions(t, cfg)
		recs := sampleRounds(t)
		// Sent newest first: the list is by time all the same.
		rev := slices.Clone(recs)
		slices.Reverse(rev)
		if res := s.ingest(ndjsonOf(t, rev), "application/x-ndjson"); res.Accepted != 10 || len(res.Errors) != 0 {
			t.Fatalf("ingest %+v", res)
		}
		all := s.listSuggestions("")
		if got := recordIDs(t, all); !slices.Equal(got, idsOf(recs...)) {
			t.Errorf("all: %q, want oldest first %q", got, idsOf(recs...))
		}
		for i, raw := range all {
			if !jsonEqual(t, raw, mustJSON(t, recs[i])) {
				t.Errorf("record %d is not as sent: %s", i, raw)
			}
		}
		later := day0().AddDate(0, 0, 4)
		for _, c := range []struct {
			query string
			want  []*suggest.Record
		}{
			{"server=prod", recs[8:]},
			{"server=%20prod%20", recs[8:]},
			{"server=local&session=b", recs[6:8]},
			{"session=a", recs[:6]},
			{"version=v2", recs[8:]},
			{"model=gpt-4o", recs[8:]},
			{"match_type=none", recs[6:8]},
			{"match_type=prefix&session=a", recs[4:6]},
			{"match_type=", recs},
			{"since=2d", recs[8:]},
			{"since=" + later.Format(time.DateOnly), recs[8:]},
			{"since=" + url.QueryEscape(later.Add(30*time.Second).Format(time.RFC3339Nano)), recs[9:]},
			{"until=" + day0().AddDate(0, 0, 1).Format(time.DateOnly), recs[:8]},
			{"since=" + day0().Add(3*time.Minute).Format(time.RFC3339) + "&until=" + day0().Add(5*time.Minute).Format(time.RFC3339), recs[3:5]},
			{"limit=3", recs[:3]},
			{"limit=1&session=b", recs[6:7]},
			{"limit=", recs},
			{"session=nosuch", nil},
		} {
			if got := recordIDs(t, s.listSuggestions(c.query)); !slices.Equal(got, idsOf(c.want...)) {
				t.Errorf("%s: %q, want %q", c.query, got, idsOf(c.want...))
			}
		}
		for _, c := range []struct{ query, field string }{
			{"limit=0", "limit"}, {"limit=1001", "limit"}, {"limit=x", "limit"},
			{"match_type=bogus", "match_type"}, {"since=yesterday", "since"}, {"until=-1h", "until"},
			{"since=2026-01-11&until=2026-01-10", "until"},
			{"format=sft", "format"}, {"accepted=true", "accepted"}, {"colour=blue", "colour"},
			{"session=" + url.QueryEscape(strings.Repeat("é", 201)), "session"},
		} {
			s.wantError("GET", "/suggestions?"+c.query, "", http.StatusBadRequest, "invalid", c.field)
		}
	})
}

// wantStats are the statistics of sampleRounds.
func wantStats() *suggestions.Stats {
	group := func(total, accepted, exact int64, m [4]int64) *suggestions.Group {
		g := &suggestions.Group{Total: total, Accepted: accepted, Exact: exact,
			ByMatchType: map[string]int64{"exact": m[0], "partial": m[1], "prefix": m[2], "none": m[3]}}
		g.AcceptanceRate = float64(accepted) / float64(total)
		g.ExactRate = float64(exact) / float64(total)
		return g
	}
	v1 := func() *suggestions.Group { return group(8, 6, 4, [4]int64{4, 0, 2, 2}) }
	v2 := func() *suggestions.Group { return group(2, 2, 1, [4]int64{1, 1, 0, 0}) }
	return &suggestions.Stats{
		Total: 10, Accepted: 8, AcceptanceRate: 0.8, ExactRate: 0.5,
		ByMatchType:   map[string]int64{"exact": 5, "partial": 1, "prefix": 2, "none": 2},
		ByPosition:    map[string]int64{"0": 5, "1": 2, "2": 1},
		ByVersion:     map[string]*suggestions.Group{"v1": v1(), "v2": v2()},
		ByModel:       map[string]*suggestions.Group{"gpt-4o-mini": v1(), "gpt-4o": v2()},
		ByTemperature: map[string]*suggestions.Group{"0.7": v1(), "0.2": v2()},
		CycleCount:    map[string]int64{"0": 5, "1": 2, "2": 1, "6": 2},
		ByContextSize: map[string]*suggestions.Group{"2": group(4, 4, 4, [4]int64{4, 0, 0, 0}), "5-9": group(2, 2, 0, [4]int64{0, 0, 2, 0}),
			"0": group(2, 0, 0, [4]int64{0, 0, 0, 2}), "20+": v2()},
		ByTokens: map[string]*suggestions.Group{"100-199": group(10, 8, 5, [4]int64{5, 1, 2, 2})},
		// Viewed but rejected: the two prefix had seen the first, the two
		// typed by hand all three, the exact on the third the first two.
		NegativeSignals: map[string]int64{"viewed_but_rejected": 5, "long_think_rejected": 2, "many_cycles": 2, "partial_match": 1, "cycled_back": 2},
		Thresholds:      suggestions.Thresholds{LongThinkMS: 10000, ManyCycles: 5},
		OverTime: []suggestions.Point{
			{Day: day0().Format(time.DateOnly), Version: "v1", Total: 8, Accepted: 6, AcceptanceRate: 0.75},
			{Day: day0().AddDate(0, 0, 4).Format(time.DateOnly), Version: "v2", Total: 2, Accepted: 2, AcceptanceRate: 1},
		},
		TimeHistogram: bins([]float64{0, 250, 500, 1000, 2000, 5000, 10000, 30000, 60000, -1}, []int64{0, 0, 1, 4, 3, 0, 2, 0, 0}),
	}
}

// bins are the histogram's bars between the edges with the counts.
func bins(edges []float64, counts []int64) []suggestions.Bin {
	out := []suggestions.Bin{}
	for i, n := range counts {
		out = append(out, suggestions.Bin{FromMS: edges[i], ToMS: edges[i+1], N: n})
	}
	return out
}

// bucketMiddle is what hone reports for a time to action of ms: the
// geometric middle of its bucket, to 0.1.
func bucketMiddle(ms float64) float64 {
	lo, hi := suggestions.BucketBounds(suggestions.TimeBucket(ms))
	return math.Round(math.Sqrt(lo*hi)*10) / 10
}

func TestSuggestionStats(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s, _ := startSuggestions(t, cfg)
		if st := s.suggestionStats(""); st.Total != 0 || st.AcceptanceRate != 0 || len(st.OverTime) != 0 || len(st.TimeHistogram) != 9 {
			t.Errorf("no records: %+v", st)
		}
		if res := s.ingest(ndjsonOf(t, sampleRounds(t)), "application/x-ndjson"); res.Accepted != 10 {
			t.Fatalf("ingest %+v", res)
		}
		st := s.suggestionStats("")
		// Times: 0.5 s, 1 s ×4, 2 s ×2, 3 s, 20 s ×2: by nearest rank p50 is
		// the 5th (1 s), p90 the 9th and p99 the 10th (20 s), within 1%.
		for _, c := range []struct{ got, want float64 }{{st.TimeToActionMS.P50, 1000}, {st.TimeToActionMS.P90, 20000}, {st.TimeToActionMS.P99, 20000}} {
			if math.Abs(c.got-c.want)/c.want > 0.01 || math.Abs(c.got-bucketMiddle(c.want)) > 0.05 {
				t.Errorf("percentiles %+v, want %v within 1%% (%v)", st.TimeToActionMS, c.want, bucketMiddle(c.want))
			}
		}
		st.TimeToActionMS = suggestions.Percentiles{}
		if want := wantStats(); !reflect.DeepEqual(st, want) {
			got, _ := json.Marshal(st)
			w, _ := json.Marshal(want)
			t.Errorf("stats\n%s\nwant\n%s", got, w)
		}

		// Filters: the days of v2 (four days after the others, on prod).
		later := day0().AddDate(0, 0, 4)
		for _, c := range []struct {
			query          string
			total, partial int64
		}{
			{"version=v2", 2, 1},
			{"server=prod", 2, 1},
			{"server=local", 8, 0},
			{"version=v1&server=prod", 0, 0},
			{"since=2d", 2, 1},
			{"since=72h", 2, 1},
			{"since=10d", 10, 1},
			{"since=" + later.Format(time.DateOnly), 2, 1},
			{"since=" + url.QueryEscape(later.Add(time.Hour).Format(time.RFC3339)), 2, 1},
			{"since=" + day0().AddDate(0, 0, 1).Format(time.DateOnly) + "&until=" + later.AddDate(0, 0, 1).Format(time.DateOnly), 2, 1},
			{"until=" + day0().AddDate(0, 0, 1).Format(time.DateOnly), 8, 0},
			{"until=" + later.Format(time.DateOnly), 8, 0},
			{"since=", 10, 1},
		} {
			st := s.suggestionStats(c.query)
			if st.Total != c.total || st.ByMatchType["partial"] != c.partial {
				t.Errorf("%s: total %d partial %d, want %d and %d", c.query, st.Total, st.ByMatchType["partial"], c.total, c.partial)
			}
		}
		if st := s.suggestionStats("version=v2"); len(st.OverTime) != 1 || st.OverTime[0].Day != later.Format(time.DateOnly) ||
			st.ByVersion["v1"] != nil || st.ByModel["gpt-4o"].ExactRate != 0.5 || st.NegativeSignals["long_think_rejected"] != 0 {
			t.Errorf("v2: %+v", st)
		}
		for _, c := range []struct{ query, field string }{
			{"since=bad", "since"}, {"since=-2d", "since"}, {"since=2026-02-30", "since"}, {"until=tomorrow", "until"},
			{"since=2026-01-11&until=2026-01-10", "until"}, {"since=2026-01-10&until=2026-01-10", "until"},
			{"session=a", "session"}, {"model=gpt-4o", "model"}, {"match_type=exact", "match_type"},
			{"limit=5", "limit"}, {"format=sft", "format"}, {"accepted=true", "accepted"},
			{"version=" + strings.Repeat("v", 201), "version"},
		} {
			e := s.wantError("GET", "/suggestions/stats?"+c.query, "", http.StatusBadRequest, "invalid", c.field)
			if !strings.Contains(e.Message, c.field) {
				t.Errorf("%s: the message %q does not name %s", c.query, e.Message, c.field)
			}
		}
	})
}

// exportLines is GET /suggestions/export with the query, each line decoded into
// a value of a new T.
func exportLines[T any](s *apiServer, query string) []T {
	s.t.Helper()
	res, b := s.call("GET", "/suggestions/export?"+query, "")
	if res.StatusCode != http.StatusOK {
		s.t.Fatalf("export %s: %d %s", query, res.StatusCode, b)
	}
	format := exportFormat(query)
	if ct, cd := res.Header.Get("Content-Type"), res.Header.Get("Content-Disposition"); ct != "application/x-ndjson" ||
		cd != `attachment; filename="suggestions-`+format+`.jsonl"` {
		s.t.Errorf("export %s: Content-Type %q, Content-Disposition %q", query, ct, cd)
	}
	out := []T{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v T
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			s.t.Fatalf("export %s: line %q: %v", query, sc.Text(), err)
		}
		out = append(out, v)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		s.t.Errorf("export %s does not end with a line break", query)
	}
	return out
}

// exportFormat is the format an export query asks for.
func exportFormat(query string) string {
	q, _ := url.ParseQuery(query)
	return strings.TrimSpace(q.Get("format"))
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type sftLine struct {
	Messages []chatMessage `json:"messages"`
}

type rankingLine struct {
	ID            string         `json:"id"`
	Context       map[string]any `json:"context"`
	Suggestions   []string       `json:"suggestions"`
	AcceptedIndex int            `json:"accepted_index"`
	MatchType     string         `json:"match_type"`
}

type dpoLine struct {
	ID       string        `json:"id"`
	Prompt   []chatMessage `json:"prompt"`
	Chosen   string        `json:"chosen"`
	Rejected string        `json:"rejected"`
}

// prompt is the request messages of a sample record.
func prompt(t *testing.T, r *suggest.Record) []chatMessage {
	t.Helper()
	var out []chatMessage
	if err := json.Unmarshal([]byte(mustJSON(t, r.LLMRequest["messages"])), &out); err != nil || len(out) != 2 {
		t.Fatalf("messages of %s: %v", r.ID, err)
	}
	return out
}

func TestSuggestionExport(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s, _ := startSuggestions(t, cfg)
		recs := sampleRounds(t)
		// One exact record without request messages: in ranking, not in sft.
		bare := recordMap(t, recs[0])
		bare["id"], bare["llm_request"], bare["ts"] = "bare", nil, recs[9].TS+60
		if res := s.ingest(ndjsonOf(t, recs)+mustJSON(t, bare)+"\n", "application/x-ndjson"); res.Accepted != 11 {
			t.Fatalf("ingest %+v", res)
		}
		byID := map[string]*suggest.Record{}
		for _, r := range recs {
			byID[r.ID] = r
		}

		// sft: the exact records with messages (the four on the first, the
		// one on the third), the input as the assistant's last message.
		checkSFT := func(query string, want []*suggest.Record) {
			t.Helper()
			lines := exportLines[sftLine](s, query)
			if len(lines) != len(want) {
				t.Fatalf("%s: %d lines, want %d", query, len(lines), len(want))
			}
			for i, l := range lines {
				r := want[i]
				wantMsgs := append(prompt(t, r), chatMessage{"assistant", r.ActualInput})
				if !slices.Equal(l.Messages, wantMsgs) {
					t.Errorf("%s line %d: %+v, want %+v", query, i+1, l.Messages, wantMsgs)
				}
			}
		}
		checkSFT("format=sft", []*suggest.Record{recs[0], recs[1], recs[2], recs[3], recs[9]})
		checkSFT("format=%20sft%20&accepted=false", []*suggest.Record{recs[0], recs[1], recs[2], recs[3], recs[9]})
		// With accepted=true, the prefix and partial ones too.
		checkSFT("format=sft&accepted=true", slices.Concat(recs[:6], recs[8:]))
		checkSFT("format=sft&accepted=true&server=prod", recs[8:])
		checkSFT("format=sft&session=b", nil)

		// ranking: every accepted record, bare too.
		ranking := exportLines[rankingLine](s, "format=ranking")
		if len(ranking) != 9 {
			t.Fatalf("ranking: %d lines, want 9", len(ranking))
		}
		for i, l := range ranking {
			if l.ID == "bare" {
				if i != 8 || l.AcceptedIndex != 0 || l.MatchType != "exact" {
					t.Errorf("ranking of bare: line %d %+v", i+1, l)
				}
				continue
			}
			r := byID[l.ID]
			if r == nil || r.AcceptedIndex == nil || l.AcceptedIndex != *r.AcceptedIndex || l.MatchType != r.MatchType ||
				!slices.Equal(l.Suggestions, r.Suggestions) || l.Context["cwd"] != "/p" || len(l.Context["blocks"].([]any)) != len(r.Context["blocks"].([]any)) {
				t.Errorf("ranking line %d: %+v, record %+v", i+1, l, r)
			}
		}
		if got := exportLines[rankingLine](s, "format=ranking&match_type=prefix"); len(got) != 2 || got[0].AcceptedIndex != 1 || got[1].ID != recs[5].ID {
			t.Errorf("ranking of the prefix records: %+v", got)
		}
		if got := exportLines[rankingLine](s, "format=ranking&match_type=none"); len(got) != 0 {
			t.Errorf("ranking of the records nothing was taken of: %+v", got)
		}

		// dpo: the input against each suggestion viewed and not taken: the
		// first for the two prefix ones, the first and second for the exact
		// one on the third.
		dpo := exportLines[dpoLine](s, "format=dpo")
		want := []dpoLine{
			{recs[4].ID, prompt(t, recs[4]), "@bash cat", threeSuggestions[0]},
			{recs[5].ID, prompt(t, recs[5]), "@bash cat", threeSuggestions[0]},
			{recs[9].ID, prompt(t, recs[9]), threeSuggestions[2], threeSuggestions[0]},
			{recs[9].ID, prompt(t, recs[9]), threeSuggestions[2], threeSuggestions[1]},
		}
		if !reflect.DeepEqual(dpo, want) {
			t.Errorf("dpo\n%+v\nwant\n%+v", dpo, want)
		}
		if got := exportLines[dpoLine](s, "format=dpo&version=v2&accepted=true"); !reflect.DeepEqual(got, want[2:]) {
			t.Errorf("dpo of v2: %+v", got)
		}

		for _, c := range []struct{ query, field string }{
			{"", "format"}, {"format=", "format"}, {"format=csv", "format"}, {"format=SFT", "format"},
			{"format=sft&accepted=yes", "accepted"}, {"format=sft&limit=5", "limit"}, {"format=sft&since=x", "since"},
			{"format=dpo&match_type=most", "match_type"}, {"format=dpo&colour=blue", "colour"},
		} {
			res, b := s.call("GET", "/suggestions/export?"+c.query, "")
			if res.Header.Get("Content-Disposition") != "" {
				t.Errorf("%s: an error with Content-Disposition %q", c.query, res.Header.Get("Content-Disposition"))
			}
			e := s.wantError("GET", "/suggestions/export?"+c.query, "", http.StatusBadRequest, "invalid", c.field)
			if !strings.Contains(e.Message, c.field) {
				t.Errorf("%s: the message %q does not name %s: %s", c.query, e.Message, c.field, b)
			}
		}
	})
}

func TestSuggestionForget(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s, root := startSuggestions(t, cfg)
		recs := sampleRounds(t)
		if res := s.ingest(ndjsonOf(t, recs), "application/x-ndjson"); res.Accepted != 10 {
			t.Fatalf("ingest %+v", res)
		}
		// Session b's history on disk, and another session's that stays.
		dir := filepath.Join(root, "local", "b")
		keep := filepath.Join(root, "local", "a")
		for _, d := range []string{dir, keep} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, suggest.HistoryFile), []byte(ndjsonOf(t, recs[6:8])), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		var f suggestions.Forgotten
		s.json("DELETE", "/suggestions?session=b", "", http.StatusOK, "Forgotten", &f)
		if f.Records != 2 || !slices.Equal(f.Directories, []string{dir}) {
			t.Errorf("forget b: %+v, want 2 records and %s", f, dir)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("the history of b is still there: %v", err)
		}
		if _, err := os.Stat(filepath.Join(keep, suggest.HistoryFile)); err != nil {
			t.Errorf("the history of a is gone: %v", err)
		}
		if got := recordIDs(t, s.listSuggestions("")); !slices.Equal(got, idsOf(slices.Concat(recs[:6], recs[8:])...)) {
			t.Errorf("left %q", got)
		}
		if got := s.listSuggestions("session=b"); len(got) != 0 {
			t.Errorf("b is still listed: %d", len(got))
		}
		want := wantStats()
		st := s.suggestionStats("")
		if st.Total != 8 || st.Accepted != 8 || st.AcceptanceRate != 1 || st.ByMatchType["none"] != 0 || st.ByContextSize["0"] != nil ||
			st.CycleCount["6"] != 0 || st.NegativeSignals["long_think_rejected"] != 0 || st.NegativeSignals["many_cycles"] != 0 ||
			st.NegativeSignals["viewed_but_rejected"] != want.NegativeSignals["viewed_but_rejected"]-2 ||
			st.TimeHistogram[6].N != 0 || st.ByVersion["v1"].Total != 6 || st.OverTime[0].AcceptanceRate != 1 {
			t.Errorf("stats after forgetting b: %+v", st)
		}
		// Forgetting it again finds nothing; nor does another server's.
		s.json("DELETE", "/suggestions?session=b", "", http.StatusOK, "Forgotten", &f)
		if f.Records != 0 || f.Directories == nil || len(f.Directories) != 0 {
			t.Errorf("forget b again: %+v", f)
		}
		s.json("DELETE", "/suggestions?session=c&server=local", "", http.StatusOK, "Forgotten", &f)
		if f.Records != 0 {
			t.Errorf("forget c of local: %+v", f)
		}
		s.json("DELETE", "/suggestions?session=%20c%20&server=prod", "", http.StatusOK, "Forgotten", &f)
		if f.Records != 2 || s.suggestionStats("server=prod").Total != 0 || s.suggestionStats("").Total != 6 {
			t.Errorf("forget c of prod: %+v", f)
		}
		// A name with a NUL or a byte that is not UTF-8 names nothing (on
		// PostgreSQL too).
		for _, q := range []string{"session=a%00", "session=a%FF", "session=a&server=local%00"} {
			s.json("DELETE", "/suggestions?"+q, "", http.StatusOK, "Forgotten", &f)
			if f.Records != 0 {
				t.Errorf("%s: %+v", q, f)
			}
		}
		for _, c := range []struct{ query, field string }{
			{"", "session"}, {"session=", "session"}, {"session=%20%09", "session"}, {"server=local", "session"},
			{"session=a&colour=blue", "colour"}, {"session=a&since=1d", "since"},
			{"session=" + url.QueryEscape(strings.Repeat("é", 201)), "session"},
			{"session=a&server=" + url.QueryEscape(strings.Repeat("é", 201)), "server"},
		} {
			s.wantError("DELETE", "/suggestions?"+c.query, "", http.StatusBadRequest, "invalid", c.field)
		}
		if got := s.listSuggestions("session=a"); len(got) != 6 {
			t.Errorf("the refused requests forgot a: %d records left", len(got))
		}
		if _, err := os.Stat(filepath.Join(keep, suggest.HistoryFile)); err != nil {
			t.Errorf("the history of a is gone: %v", err)
		}
	})
}

// TestSuggestionDocumentedExamples sends the documented NDJSON example and
// requires the documented answers: the listed record, the statistics and
// the sft line.
func TestSuggestionDocumentedExamples(t *testing.T) {
	doc := confDoc(t)
	example := func(pointer string) any {
		t.Helper()
		v := resolve(doc, pointer)
		if v == nil {
			t.Fatalf("openapi.json has no example at %s", pointer)
		}
		return v
	}
	body := example("/paths/~1suggestions/post/requestBody/content/application~1x-ndjson/example").(string)
	record := mustJSON(t, example("/paths/~1suggestions/post/requestBody/content/application~1json/example"))
	listed := mustJSON(t, example("/paths/~1suggestions/get/responses/200/content/application~1json/example"))
	stats := mustJSON(t, example("/paths/~1suggestions~1stats/get/responses/200/content/application~1json/example"))
	sft := example("/paths/~1suggestions~1export/get/responses/200/content/application~1x-ndjson/example").(string)
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s, _ := startSuggestions(t, cfg)
		if res := s.ingest(body, "application/x-ndjson"); res.Accepted != 2 || len(res.Errors) != 0 {
			t.Fatalf("the NDJSON example: %+v", res)
		}
		if res := s.ingest(record, "application/json"); res.Duplicates != 1 {
			t.Errorf("the JSON example is not the NDJSON example's first record: %+v", res)
		}
		_, b := s.call("GET", "/suggestions?limit=1", "")
		if !jsonEqual(t, b, listed) {
			t.Errorf("GET /suggestions?limit=1: %s\nthe example: %s", b, listed)
		}
		_, b = s.call("GET", "/suggestions/stats", "")
		if !jsonEqual(t, b, stats) {
			t.Errorf("GET /suggestions/stats: %s\nthe example: %s", b, stats)
		}
		_, b = s.call("GET", "/suggestions/export?format=sft", "")
		if string(b) != sft {
			t.Errorf("GET /suggestions/export?format=sft: %s\nthe example: %s", b, sft)
		}
	})
}

// specRecord is the spec's example record, of the spec's size, with the id
// and time given.
func specRecord(id string, ts float64) []byte {
	return fmt.Appendf(nil, `{"id":%q,"ts":%v,"session":"my-project","server":"local","trigger_block":5,"result_block":6,`+
		`"context":{"nodes":["claude","bash","python"],"graphs":["pipeline"],"workflows":["debug"],"blocks":[`+
		`{"input":"@claude explain async","output":"Async is...","success":true},{"input":"@bash ls","output":"file1.py\nfile2.py","success":true}],`+
		`"cwd":"/home/user/project"},"llm_request":{"messages":[{"role":"system","content":"You are a command suggestion assistant..."},`+
		`{"role":"user","content":"{\"nodes\": [...], \"blocks\": [...]}"}],"model":"gpt-4o-mini","temperature":0.7,"max_tokens":256},`+
		`"llm_response":{"raw_content":"1. @claude explain this error\n2. @bash cat logs.txt\n3. @python debug.py","model":"gpt-4o-mini",`+
		`"usage":{"prompt_tokens":150,"completion_tokens":50,"total_tokens":200},"finish_reason":"stop","latency_ms":234.5},`+
		`"suggestions":["@claude explain this error","@bash cat logs.txt","@python debug.py"],"suggestion_node_version":"v1.0",`+
		`"viewed_indices":[0,1,0],"cycle_count":2,"displayed_index_at_submit":0,"accepted_index":0,`+
		`"actual_input":"@claude explain this error","match_type":"exact","time_to_action_ms":1234.5}`, id, ts)
}

// BenchmarkIngestNDJSON posts NDJSON batches of 1,000 records of the spec's
// example size (about 1.2 KB each) from 4 concurrent keep-alive clients
// over loopback to a server on SQLite, and reports the records stored per
// second. One op is one batch: use -benchtime 100x (100,000 records).
func BenchmarkIngestNDJSON(b *testing.B) {
	const clients, batch = 4, 1000
	ctx := context.Background()
	cfg := config.Config{DataDir: b.TempDir(), SuggestionRoot: b.TempDir(), Addr: "127.0.0.1:0",
		MaxBodyBytes: config.DefaultMaxBodyBytes, MessageLimit: tuning.DefaultMessageLimit}
	a, err := app.Open(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	if err := a.Listen(); err != nil {
		b.Fatal(err)
	}
	per := max(b.N/clients, 1)
	bodies := make([][][]byte, clients)
	t0 := float64(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix())
	size := 0
	for c := range bodies {
		for i := range per {
			var body bytes.Buffer
			for j := range batch {
				n := (c*per+i)*batch + j
				body.Write(specRecord(fmt.Sprintf("bench-%d", n), t0+float64(n)))
				body.WriteByte('\n')
			}
			size = body.Len()
			bodies[c] = append(bodies[c], body.Bytes())
		}
	}
	url := a.URL() + api.Prefix + "/suggestions"
	transport := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport}
	var failed atomic.Int64
	var firstErr atomic.Value
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for _, body := range bodies[c] {
				res, err := client.Post(url, "application/x-ndjson", bytes.NewReader(body))
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				answer, _ := io.ReadAll(res.Body)
				res.Body.Close()
				var out suggestions.Result
				if res.StatusCode != http.StatusOK || json.Unmarshal(answer, &out) != nil || out.Accepted != batch || len(out.Errors) != 0 {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Sprintf("status %d: %.300s", res.StatusCode, answer))
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d batches failed, the first: %v", n, firstErr.Load())
	}
	n := clients * per * batch
	st, err := suggestions.NewService(a.DB.Suggestions(), suggestions.Options{}).Stats(ctx, suggestions.Filter{})
	if err != nil || st.Total != int64(n) {
		b.Fatalf("stats after the benchmark: %d records, want %d (%v)", st.Total, n, err)
	}
	b.ReportMetric(float64(n)/elapsed.Seconds(), "records/s")
	b.ReportMetric(float64(size)/batch, "bytes/record")
}

// recordCase is one record of the conformance of SuggestionRecord.
type recordCase struct {
	name string
	body []byte
}

// knownRecord is a record on which the schema and the server part ways,
// for a reason the schema's description states: the document's verdict,
// and the field the server names (accepted when "-").
type knownRecord struct {
	schemaValid bool
	field       string
}

// TestSuggestionRecordConformance judges records made from a valid one by
// changing one property at a time by SuggestionRecord, and sends them all
// as NDJSON and as an array: each record the schema finds valid must be
// accepted, each it finds invalid refused with its line naming a field the
// schema names, but for the known disagreements, pinned.
func TestSuggestionRecordConformance(t *testing.T) {
	const pointer = "/components/schemas/SuggestionRecord"
	doc := confDoc(t)
	props, _ := resolve(doc, pointer+"/properties").(map[string]any)
	n := 0
	base := func() map[string]any {
		n++
		return map[string]any{"id": fmt.Sprint("conf-", n), "ts": 1704067200.5, "session": "s", "server": "local",
			"trigger_block": 5, "result_block": 6, "context": map[string]any{"blocks": []any{map[string]any{"input": "x"}}, "cwd": "/p"},
			"llm_request":  map[string]any{"model": "m", "temperature": 0.7, "messages": []any{map[string]any{"role": "user", "content": "q"}}},
			"llm_response": map[string]any{"model": "m", "usage": map[string]any{"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}},
			"suggestions":  []any{"a", "b", "c"}, "suggestion_node_version": "v1", "viewed_indices": []any{}, "cycle_count": 0,
			"displayed_index_at_submit": -1, "accepted_index": nil, "actual_input": "z", "match_type": "none", "time_to_action_ms": 1.5,
			"context_block_count": 1, "fetch_start_ts": 1, "fetch_end_ts": 2, "submit_ts": 3, "fetch_latency_ms": 4}
	}
	if got, want := slices.Sorted(maps.Keys(props)), slices.Sorted(maps.Keys(base())); !slices.Equal(got, want) {
		t.Fatalf("the schema has %v, the test's record %v", got, want)
	}
	names := lengths([]int{suggestions.MaxNameLength}, false, repeat)
	numbers := []value{val("0", 0), val("-0", raw("-0")), val("small negative", -0.001), val("largest double", raw("1.7976931348623157e308")),
		val("beyond a double", raw("1e309")), val("1e3", raw("1e3"))}
	whole := []value{val("-2", -2), val("1.0", raw("1.0")), val("1e0", raw("1e0")), val("7", 7)}
	specific := map[string][]value{
		"id":                      lengths([]int{suggestions.MaxIDLength}, false, repeat),
		"session":                 names,
		"server":                  names,
		"suggestion_node_version": names,
		"ts": {val("1e11", raw("1e11")), val("1e11+1", raw("100000000001")), val("-0", raw("-0")), val("1e400", raw("1e400")),
			val("a fraction", 1704067200.123456)},
		"trigger_block":             whole,
		"result_block":              whole,
		"cycle_count":               whole,
		"context_block_count":       whole,
		"displayed_index_at_submit": append(slices.Clone(whole), val("2", 2), val("3", 3)),
		"accepted_index":            {val("2", 2)},
		"context": {val("blocks a string", map[string]any{"blocks": "x"}), val("blocks null", map[string]any{"blocks": nil}),
			val("no blocks", map[string]any{"cwd": "/"}), val("a null block", map[string]any{"blocks": []any{nil}}),
			val("a number block", map[string]any{"blocks": []any{map[string]any{}, 1}}), val("a string block", map[string]any{"blocks": []any{"x"}})},
		"llm_request": {val("model a number", map[string]any{"model": 5}), val("model null", map[string]any{"model": nil}),
			val("temperature a string", map[string]any{"temperature": "hot"}), val("temperature 1e400", map[string]any{"temperature": raw("1e400")}),
			val("messages a string", map[string]any{"messages": "x"}), val("a null message", map[string]any{"messages": []any{nil}}),
			val("a number message", map[string]any{"messages": []any{1}})},
		"llm_response": {val("model a number", map[string]any{"model": 5}), val("usage a string", map[string]any{"usage": "x"}),
			val("total_tokens 1.5", map[string]any{"usage": map[string]any{"total_tokens": 1.5}}),
			val("prompt_tokens a string", map[string]any{"usage": map[string]any{"prompt_tokens": "1"}})},
		"suggestions": {val("a number among them", []any{"a", 1}), val("null among them", []any{"a", nil}), val("one", []any{"z"}),
			val("only null", []any{nil}), val("true among them", []any{"a", true}), val("an object among them", []any{"a", map[string]any{}}),
			val("an array among them", []any{"a", []any{"b"}})},
		"viewed_indices": {val("in range", []any{0, 2, 0}), val("out of range", []any{3}), val("negative", []any{-1}), val("a fraction", []any{0.5}),
			val("null among them", []any{0, nil}), val("only null", []any{nil}), val("a string among them", []any{0, "1"}),
			val("true among them", []any{true}), val("an object among them", []any{map[string]any{}}), val("an array among them", []any{[]any{0}})},
		"match_type":   {val("exact", "exact"), val("EXACT", "EXACT"), val("none", "none")},
		"actual_input": {val("long", strings.Repeat("é", 5000))},
	}
	for _, f := range []string{"time_to_action_ms", "fetch_start_ts", "fetch_end_ts", "submit_ts", "fetch_latency_ms"} {
		specific[f] = numbers
	}
	known := map[string]knownRecord{
		// Go's encoding/json wants whole numbers without a fraction or
		// exponent (the schema's description says so).
		"trigger_block: 1.0": {true, "trigger_block"}, "trigger_block: 1e0": {true, "trigger_block"},
		"result_block: 1.0": {true, "result_block"}, "result_block: 1e0": {true, "result_block"},
		"cycle_count: 1.0": {true, "cycle_count"}, "cycle_count: 1e0": {true, "cycle_count"},
		"context_block_count: 1.0": {true, "context_block_count"}, "context_block_count: 1e0": {true, "context_block_count"},
		"displayed_index_at_submit: 1.0": {true, "displayed_index_at_submit"}, "displayed_index_at_submit: 1e0": {true, "displayed_index_at_submit"},
		// Positions in suggestions: a rule JSON Schema cannot state.
		"displayed_index_at_submit: 3":   {true, "displayed_index_at_submit"},
		"displayed_index_at_submit: 7":   {true, "displayed_index_at_submit"},
		"viewed_indices: out of range":   {true, "viewed_indices"},
		"match_type exact, position 5":   {true, "accepted_index"},
		"no match_type, position 5":      {true, "accepted_index"},
		"suggestions: one, viewed 0 2 0": {true, "viewed_indices"},
		// Property names are matched without regard to case.
		"TS for ts": {false, "-"},
		// null is no record: Parse finds every field left out.
		"record null": {false, "ts"},
	}
	var cases []recordCase
	add := func(name string, m any) {
		cases = append(cases, recordCase{name, []byte(mustJSON(t, m))})
	}
	for _, field := range slices.Sorted(maps.Keys(props)) {
		for _, v := range append(slices.Clone(generic), specific[field]...) {
			m := base()
			if x := v.make(); x == absent {
				delete(m, field)
			} else {
				m[field] = x
			}
			add(field+": "+v.name, m)
		}
	}
	for _, c := range []struct {
		name    string
		changes map[string]any
	}{
		{"match_type prefix, position 1", map[string]any{"match_type": "prefix", "accepted_index": 1}},
		{"match_type exact, position 5", map[string]any{"match_type": "exact", "accepted_index": 5}},
		{"match_type exact, no position", map[string]any{"match_type": "exact", "accepted_index": absent}},
		{"no match_type, position 5", map[string]any{"match_type": absent, "accepted_index": 5}},
		{"no match_type, position 1", map[string]any{"match_type": absent, "accepted_index": 1}},
		{"suggestions: one, viewed 0 2 0", map[string]any{"suggestions": []any{"z"}, "viewed_indices": []any{0, 2, 0}}},
		{"unknown property colour", map[string]any{"colour": "blue"}},
		{"unknown property Colour null", map[string]any{"Colour": nil}},
		{"TS for ts", map[string]any{"ts": absent, "TS": 1704067200}},
	} {
		m := base()
		for k, v := range c.changes {
			if v == absent {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		add(c.name, m)
	}
	for _, w := range []string{"null", "[]", "1", `"x"`, "true", "[{}]", "{}"} {
		cases = append(cases, recordCase{"record " + w, []byte(w)})
	}
	verdicts := make([]verdict, len(cases))
	for i, c := range cases {
		verdicts[i] = judge(t, pointer, c.body)
	}
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		s, _ := startSuggestions(t, cfg)
		for _, format := range []string{"ndjson", "array"} {
			t.Run(format, func(t *testing.T) {
				s := *s
				s.t = t
				// The cases go in requests of as many records as an answer
				// lists errors of, so that every refusal is listed.
				var res suggestions.Result
				byLine := map[int]suggestions.LineError{}
				for start := 0; start < len(cases); start += ndjson.ListedErrors {
					var body bytes.Buffer
					contentType := "application/x-ndjson"
					if format == "array" {
						contentType = "application/json"
						body.WriteByte('[')
					}
					for i, c := range cases[start:min(start+ndjson.ListedErrors, len(cases))] {
						if i > 0 && format == "array" {
							body.WriteByte(',')
						}
						body.Write(c.body)
						if format == "ndjson" {
							body.WriteByte('\n')
						}
					}
					if format == "array" {
						body.WriteByte(']')
					}
					part := s.ingest(body.String(), contentType)
					if part.ErrorsNotListed != 0 {
						t.Fatalf("%d errors not listed", part.ErrorsNotListed)
					}
					res.Accepted += part.Accepted
					res.Duplicates += part.Duplicates
					for _, e := range part.Errors {
						e.Line += start
						res.Errors = append(res.Errors, e)
						byLine[e.Line] = e
					}
				}
				accepted := 0
				for i, c := range cases {
					v := verdicts[i]
					e, refused := byLine[i+1]
					if !refused {
						accepted++
					}
					if k, ok := known[c.name]; ok {
						field := "-"
						if refused {
							field = e.Field
						}
						if v.valid != k.schemaValid || field != k.field {
							t.Errorf("known case %s changed: the schema says %v, the server %q (was valid=%v and %q): update the case",
								c.name, v, field, k.schemaValid, k.field)
						}
						continue
					}
					switch {
					case v.valid && refused:
						t.Errorf("%s: the schema says valid, the server refused it: %s: %s", c.name, e.Field, e.Message)
					case !v.valid && !refused:
						t.Errorf("%s: the schema says %v, the server accepted it: %s", c.name, v, c.body)
					case !v.valid && !v.names(e.Field):
						t.Errorf("%s: the schema says %v, the server names %q: %s", c.name, v, e.Field, e.Message)
					}
				}
				if res.Accepted+res.Duplicates != accepted {
					t.Errorf("%+v, but %d records were not refused", res, accepted)
				}
				t.Logf("%d records, %d accepted", len(cases), accepted)
			})
		}
		for name := range known {
			if !slices.ContainsFunc(cases, func(c recordCase) bool { return c.name == name }) {
				t.Errorf("known case %q is no case", name)
			}
		}
	})
}
