package suggestions_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/suggestions"
	"github.com/honehq/hone/suggest"
)

var ctx = context.Background()

// sample is one round to record.
type sample struct {
	server, session, version string
	model                    string
	temperature              float64
	steps                    int // Next presses
	input                    string
	think                    time.Duration
	blocks                   int
}

var three = []string{"@claude explain this error", "@bash cat logs.txt", "@python debug.py"}

// records makes the records of the samples with the suggest library, from
// hour 0 of 2026-01-10 on, one a minute.
func records(t *testing.T, samples []sample) []*suggest.Record {
	t.Helper()
	clock := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	var out []*suggest.Record
	for _, s := range samples {
		tr := suggest.NewTracker(suggest.Options{Server: s.server, Session: s.session, Now: func() time.Time { return clock }})
		blocks := make([]any, s.blocks)
		for i := range blocks {
			blocks[i] = map[string]any{"input": "x", "output": "y"}
		}
		tr.Fetched(map[string]any{"blocks": blocks}, three, map[string]any{"model": s.model, "temperature": s.temperature},
			map[string]any{"usage": map[string]any{"total_tokens": 150}}, s.version)
		for range s.steps {
			tr.Next()
		}
		clock = clock.Add(s.think)
		r := tr.Submit(s.input, nil)
		if r == nil {
			t.Fatal("no record")
		}
		out = append(out, r)
		clock = clock.Add(time.Minute)
	}
	return out
}

func ndjson(t *testing.T, recs []*suggest.Record) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func TestIngestStatsForget(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		root := t.TempDir()
		svc := suggestions.NewService(db.Suggestions(), suggestions.Options{HistoryRoot: root})
		var samples []sample
		// v1: 4 exact on the first suggestion, 2 prefix on the second,
		// 2 none after long thought and many cycles (cycling back).
		for range 4 {
			samples = append(samples, sample{"local", "a", "v1", "gpt-4o-mini", 0.7, 0, three[0], time.Second, 2})
		}
		for range 2 {
			samples = append(samples, sample{"local", "a", "v1", "gpt-4o-mini", 0.7, 1, "@bash cat", 2 * time.Second, 5})
		}
		for range 2 {
			samples = append(samples, sample{"local", "b", "v1", "gpt-4o-mini", 0.7, 6, "rm -rf build", 20 * time.Second, 0})
		}
		// v2 on another server: 1 partial, 1 exact on the third.
		samples = append(samples, sample{"prod", "c", "v2", "gpt-4o", 0.2, 0, three[0] + " now", 500 * time.Millisecond, 25})
		samples = append(samples, sample{"prod", "c", "v2", "gpt-4o", 0.2, 2, three[2], 3 * time.Second, 25})
		recs := records(t, samples)
		body := ndjson(t, recs)
		body = append(body, []byte("{\"ts\": 1}\n{torn")...)
		res, err := svc.Ingest(ctx, bytes.NewReader(body), "application/x-ndjson")
		if err != nil {
			t.Fatal(err)
		}
		if res.Accepted != 10 || res.Duplicates != 0 || len(res.Errors) != 2 || res.Errors[0].Line != 11 || res.Errors[0].Field != "suggestions" ||
			res.Errors[1].Line != 12 {
			t.Fatalf("ingest %+v", res)
		}
		res, err = svc.Ingest(ctx, bytes.NewReader(ndjson(t, recs[:3])), "application/x-ndjson")
		if err != nil || res.Accepted != 0 || res.Duplicates != 3 || len(res.Errors) != 0 {
			t.Fatalf("ingesting again %+v %v", res, err)
		}

		st, err := svc.Stats(ctx, suggestions.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if st.Total != 10 || st.Accepted != 8 || st.AcceptanceRate != 0.8 || st.ExactRate != 0.5 ||
			st.ByMatchType["exact"] != 5 || st.ByMatchType["prefix"] != 2 || st.ByMatchType["partial"] != 1 || st.ByMatchType["none"] != 2 ||
			st.ByPosition["0"] != 5 || st.ByPosition["1"] != 2 || st.ByPosition["2"] != 1 {
			t.Fatalf("stats %+v", st)
		}
		v1, v2 := st.ByVersion["v1"], st.ByVersion["v2"]
		if v1.Total != 8 || v1.Accepted != 6 || v1.AcceptanceRate != 0.75 || v1.Exact != 4 || v2.Total != 2 || v2.AcceptanceRate != 1 || v2.ExactRate != 0.5 {
			t.Fatalf("by version %+v %+v", v1, v2)
		}
		if st.ByModel["gpt-4o"].Total != 2 || st.ByModel["gpt-4o-mini"].Total != 8 || st.ByTemperature["0.7"].Accepted != 6 || st.ByTemperature["0.2"].Total != 2 {
			t.Fatalf("by model %+v, by temperature %+v", st.ByModel, st.ByTemperature)
		}
		if st.CycleCount["0"] != 5 || st.CycleCount["1"] != 2 || st.CycleCount["2"] != 1 || st.CycleCount["6"] != 2 {
			t.Fatalf("cycles %v", st.CycleCount)
		}
		if g := st.ByContextSize["20+"]; g == nil || g.Total != 2 || st.ByContextSize["0"].ByMatchType["none"] != 2 || st.ByContextSize["5-9"].Total != 2 {
			t.Fatalf("by context size %+v", st.ByContextSize)
		}
		if st.ByTokens["100-199"].Total != 10 {
			t.Fatalf("by tokens %+v", st.ByTokens)
		}
		// The signals: viewed but rejected are the rounds that showed a
		// suggestion they did not take (2 prefix on the second had seen the
		// first, 2 none, 1 exact on the third).
		want := map[string]int64{"viewed_but_rejected": 5, "long_think_rejected": 2, "many_cycles": 2, "partial_match": 1, "cycled_back": 2}
		for k, v := range want {
			if st.NegativeSignals[k] != v {
				t.Errorf("signal %s = %d, want %d", k, st.NegativeSignals[k], v)
			}
		}
		// Times: 0.5 s, 1 s ×4, 2 s ×2, 3 s, 20 s ×2: by nearest rank p50
		// is the 5th (1 s), p90 the 9th and p99 the 10th (20 s), within 1%.
		for _, c := range []struct{ got, want float64 }{{st.TimeToActionMS.P50, 1000}, {st.TimeToActionMS.P90, 20000}, {st.TimeToActionMS.P99, 20000}} {
			if math.Abs(c.got-c.want)/c.want > 0.01 {
				t.Errorf("percentiles %+v", st.TimeToActionMS)
			}
		}
		if len(st.OverTime) != 2 || st.OverTime[0].Day != "2026-01-10" || st.OverTime[0].Version != "v1" || st.OverTime[0].AcceptanceRate != 0.75 {
			t.Errorf("over time %+v", st.OverTime)
		}
		var binned int64
		for _, b := range st.TimeHistogram {
			binned += b.N
		}
		if binned != 10 || st.TimeHistogram[2].N != 1 || st.TimeHistogram[3].N != 4 || st.TimeHistogram[4].N != 3 || st.TimeHistogram[6].N != 2 ||
			st.TimeHistogram[8].ToMS != -1 {
			t.Errorf("histogram %+v", st.TimeHistogram)
		}

		// Filters.
		if st, _ := svc.Stats(ctx, suggestions.Filter{Version: "v2"}); st.Total != 2 || st.ByMatchType["partial"] != 1 {
			t.Errorf("v2 %+v", st)
		}
		if st, _ := svc.Stats(ctx, suggestions.Filter{Server: "prod"}); st.Total != 2 {
			t.Errorf("prod %+v", st)
		}
		if st, _ := svc.Stats(ctx, suggestions.Filter{Since: time.Date(2026, 1, 11, 0, 0, 0, 0, time.UTC)}); st.Total != 0 {
			t.Errorf("since tomorrow %+v", st)
		}

		// Forget one session: its records, rollups and history directory.
		dir := filepath.Join(root, "local", "b")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		f, err := svc.Forget(ctx, "", "b")
		if err != nil || f.Records != 2 || len(f.Directories) != 1 || f.Directories[0] != dir {
			t.Fatalf("forget %+v %v", f, err)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("the history directory is still there: %v", err)
		}
		st, _ = svc.Stats(ctx, suggestions.Filter{})
		if st.Total != 8 || st.ByMatchType["none"] != 0 || st.NegativeSignals["long_think_rejected"] != 0 || st.CycleCount["6"] != 0 {
			t.Errorf("after forgetting: %+v", st)
		}
		var left []string
		if err := svc.Each(ctx, suggestions.Filter{}, func(r *suggestions.Record) error {
			left = append(left, r.Session)
			return nil
		}); err != nil || len(left) != 8 {
			t.Errorf("records left %v %v", left, err)
		}
		if _, err := svc.Forget(ctx, "", " "); hone.ErrorField(err) != "session" {
			t.Errorf("forget without a session: %v", err)
		}
	})
}

func TestImportHistoryTree(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		root := t.TempDir()
		sink, err := suggest.NewJSONL(suggest.JSONLOptions{Root: root})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"a", "b"} {
			tr := suggest.NewTracker(suggest.Options{Server: "local", Session: s, Sink: sink})
			for range 3 {
				tr.Fetched(map[string]any{}, three, nil, nil, "v1")
				tr.Submit(three[1], nil)
			}
		}
		if err := sink.Close(); err != nil {
			t.Fatal(err)
		}
		torn := filepath.Join(root, "local", "b", suggest.HistoryFile)
		f, _ := os.OpenFile(torn, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(`{"id": "half", "ts": 17`)
		f.Close()
		svc := suggestions.NewService(db.Suggestions(), suggestions.Options{HistoryRoot: root})
		var files []string
		res, warnings, err := svc.Import(ctx, root, func(file string, _ *suggestions.Result) { files = append(files, file) })
		if err != nil || res.Accepted != 6 || res.Duplicates != 0 || len(warnings) != 1 || warnings[0].File != torn || warnings[0].Line != 4 || len(files) != 2 {
			t.Fatalf("import %+v %v %v %v", res, warnings, files, err)
		}
		res, _, err = svc.Import(ctx, root, nil)
		if err != nil || res.Accepted != 0 || res.Duplicates != 6 {
			t.Fatalf("importing again %+v %v", res, err)
		}
		if st, _ := svc.Stats(ctx, suggestions.Filter{}); st.Total != 6 || st.ByMatchType["exact"] != 6 {
			t.Errorf("stats %+v", st)
		}
		if _, _, err := svc.Import(ctx, filepath.Join(root, "nope"), nil); hone.ErrorField(err) != "path" {
			t.Errorf("a missing path: %v", err)
		}
	})
}
