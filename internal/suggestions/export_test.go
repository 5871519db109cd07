package suggestions_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/suggestions"
	"github.com/honehq/hone/suggest"
)

func TestExports(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		svc := suggestions.NewService(db.Suggestions(), suggestions.Options{HistoryRoot: t.TempDir()})
		sys := map[string]any{"role": "system", "content": "Suggest the next command."}
		user := map[string]any{"role": "user", "content": `{"blocks": []}`}
		var recs []*suggest.Record
		clock := time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC)
		for _, c := range []struct {
			steps int
			input string
			req   map[string]any
		}{
			{0, three[0], map[string]any{"messages": []any{sys, user}}},                    // exact on the first, nothing else seen
			{2, three[2], map[string]any{"messages": []any{sys, user}}},                    // exact on the third after seeing all three
			{1, "@bash cat logs.txt | less", map[string]any{"messages": []any{sys, user}}}, // partial on the second after the first
			{1, "make", map[string]any{"messages": []any{sys, user}}},                      // none
			{0, three[0], nil}, // exact without the request: no sft, no dpo
		} {
			clock = clock.Add(time.Second)
			at := clock
			tr := suggest.NewTracker(suggest.Options{Session: "s", Now: func() time.Time { return at }})
			tr.Fetched(map[string]any{"cwd": "/p"}, three, c.req, nil, "v1")
			for range c.steps {
				tr.Next()
			}
			recs = append(recs, tr.Submit(c.input, nil))
		}
		if _, err := svc.Ingest(ctx, bytes.NewReader(ndjson(t, recs)), "application/x-ndjson"); err != nil {
			t.Fatal(err)
		}
		export := func(o suggestions.ExportOptions) ([]map[string]any, *suggestions.Exported) {
			var b bytes.Buffer
			out, err := svc.Export(ctx, &b, o)
			if err != nil {
				t.Fatal(err)
			}
			var lines []map[string]any
			sc := bufio.NewScanner(&b)
			for sc.Scan() {
				var m map[string]any
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					t.Fatalf("%s line %q: %v", o.Format, sc.Text(), err)
				}
				lines = append(lines, m)
			}
			return lines, out
		}

		sft, out := export(suggestions.ExportOptions{Format: "sft"})
		if len(sft) != 2 || out.Lines != 2 || out.Skipped != 1 {
			t.Fatalf("sft %v %+v", sft, out)
		}
		msgs := sft[1]["messages"].([]any)
		last := msgs[len(msgs)-1].(map[string]any)
		if len(msgs) != 3 || msgs[0].(map[string]any)["content"] != "Suggest the next command." || last["role"] != "assistant" || last["content"] != three[2] {
			t.Fatalf("sft line %v", sft[1])
		}
		if all, _ := export(suggestions.ExportOptions{Format: "sft", Accepted: true}); len(all) != 3 {
			t.Errorf("sft of every accepted record: %d lines", len(all))
		}

		ranking, out := export(suggestions.ExportOptions{Format: "ranking"})
		if len(ranking) != 4 || out.Skipped != 1 || ranking[1]["accepted_index"] != 2.0 || len(ranking[1]["suggestions"].([]any)) != 3 ||
			ranking[1]["context"].(map[string]any)["cwd"] != "/p" || ranking[2]["match_type"] != "partial" {
			t.Fatalf("ranking %v %+v", ranking, out)
		}

		dpo, out := export(suggestions.ExportOptions{Format: "dpo"})
		// The third viewed 0, 1, 2 and took 2: two pairs; the partial one
		// viewed 0 and 1 and took 1: one pair.
		if len(dpo) != 3 || out.Lines != 3 || dpo[0]["chosen"] != three[2] || dpo[0]["rejected"] != three[0] || dpo[1]["rejected"] != three[1] ||
			dpo[2]["chosen"] != "@bash cat logs.txt | less" || dpo[2]["rejected"] != three[0] || len(dpo[0]["prompt"].([]any)) != 2 {
			t.Fatalf("dpo %v %+v", dpo, out)
		}

		if v1, _ := export(suggestions.ExportOptions{Format: "ranking", Filter: suggestions.Filter{Version: "v2"}}); len(v1) != 0 {
			t.Errorf("a filter that picks nothing: %v", v1)
		}
		if _, err := svc.Export(ctx, &bytes.Buffer{}, suggestions.ExportOptions{Format: "csv"}); hone.ErrorField(err) != "format" {
			t.Errorf("an unknown format: %v", err)
		}
	})
}
