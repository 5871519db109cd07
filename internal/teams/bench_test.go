package teams

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/honehq/hone/internal/bots"
)

// instantBot answers every message at once, with a turn.
type instantBot struct{}

func (instantBot) Message(_ context.Context, in bots.Incoming) (bots.Outgoing, error) {
	return bots.Outgoing{Text: "echo: " + in.Text, TurnID: "turn-1"}, nil
}
func (instantBot) Rate(context.Context, bots.Rating) (bots.Outgoing, error) {
	return bots.Outgoing{}, nil
}
func (instantBot) React(context.Context, bots.AlertPress) (bots.Outgoing, error) {
	return bots.Outgoing{}, nil
}

// BenchmarkMessage is the time from a tester's message reaching
// /api/messages to its answer reaching the Bot Connector, against an
// instant bot and an instant connector, beside the baseline of the same
// bot call and the same POST to the connector made directly: added-µs/msg
// is what the adapter itself costs per message (with its typing
// indicator, one more POST, sent before the answer).
func BenchmarkMessage(b *testing.B) {
	got := make(chan struct{}, 1)
	conn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"bot-act-1"}`)
		if !bytes.Contains(body, []byte(`"type":"typing"`)) {
			got <- struct{}{}
		}
	}))
	defer conn.Close()
	client := &http.Client{Timeout: 10 * time.Second}
	a, err := newAdapter(Config{NoAuth: true, Loopback: true}, instantBot{}, nil, client)
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close(context.Background())
	h := a.Handler()
	body, _ := json.Marshal(messageActivity(conn.URL, "what is our refund policy?"))
	var bot instantBot
	var adapter, baseline time.Duration
	for b.Loop() {
		start := time.Now()
		out, _ := bot.Message(context.Background(), bots.Incoming{Text: "what is our refund policy?"})
		reply, _ := json.Marshal(activity{Type: "message", Text: out.Text})
		resp, err := client.Post(conn.URL+"/v3/conversations/a:conv-1/activities/user-act-1", "application/json", bytes.NewReader(reply))
		if err != nil {
			b.Fatal(err)
		}
		<-got
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		baseline += time.Since(start)

		start = time.Now()
		req := httptest.NewRequest(http.MethodPost, "/api/messages", bytes.NewReader(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
		<-got
		adapter += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(float64(adapter.Nanoseconds())/n/1e3, "adapter-µs/msg")
	b.ReportMetric(float64(baseline.Nanoseconds())/n/1e3, "baseline-µs/msg")
	b.ReportMetric(float64((adapter-baseline).Nanoseconds())/n/1e3, "added-µs/msg")
	b.ReportMetric(float64(adapter)/float64(baseline), "ratio")
}
