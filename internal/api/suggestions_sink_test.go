package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/suggest"
)

// The library's HTTP sink against a real hone with a token: every record
// a tracker finalises is stored once, redacted, and counted.
func TestHTTPSinkToHone(t *testing.T) {
	eachDatabase(t, func(t *testing.T, cfg config.Config) {
		cfg.APIToken = "s3cret-token"
		s, _ := startSuggestions(t, cfg)
		base := strings.TrimSuffix(s.base, api.Prefix)
		sink, err := suggest.NewHTTP(suggest.HTTPOptions{BaseURL: base, Token: cfg.APIToken, BatchSize: 7, FlushInterval: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		key := "sk-proj-abcdefghijklmnopqrstuvwx"
		var ids []string
		for i := range 25 {
			tr := suggest.NewTracker(suggest.Options{Server: "local", Session: "e2e", Sink: sink})
			tr.Fetched(map[string]any{"blocks": []any{map[string]any{"output": "OPENAI_API_KEY=" + key}}}, threeSuggestions,
				map[string]any{"model": "m", "messages": []any{systemMessage}}, nil, "v1")
			if i%2 == 1 {
				tr.Next()
			}
			ids = append(ids, tr.Submit(threeSuggestions[i%2], nil).ID)
		}
		if tr := suggest.NewTracker(suggest.Options{Sink: sink}); tr.Submit(":quit", nil) != nil {
			t.Fatal("a round without suggestions was recorded")
		}
		if err := sink.Close(); err != nil {
			t.Fatal(err)
		}
		if sink.Sent() != 25 || sink.Dropped() != 0 || sink.Rejected() != 0 || sink.Failed() != 0 {
			t.Fatalf("sent %d dropped %d rejected %d failed %d", sink.Sent(), sink.Dropped(), sink.Rejected(), sink.Failed())
		}
		st := s.suggestionStats("")
		if st.Total != 25 || st.ByMatchType["exact"] != 25 || st.ByPosition["0"] != 13 || st.ByPosition["1"] != 12 {
			t.Fatalf("stats %+v", st)
		}
		got := recordIDs(t, s.listSuggestions("session=e2e&limit=1000"))
		if len(got) != 25 {
			t.Fatalf("listed %d records", len(got))
		}
		for _, raw := range s.listSuggestions("limit=1000") {
			if strings.Contains(string(raw), key) {
				t.Fatalf("a key reached hone: %s", raw)
			}
		}
		seen := map[string]bool{}
		for _, id := range got {
			seen[id] = true
		}
		for _, id := range ids {
			if !seen[id] {
				t.Errorf("record %s is missing", id)
			}
		}
	})
}
