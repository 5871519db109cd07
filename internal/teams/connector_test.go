package teams

import (
	"net/http"
	"testing"
	"time"
)

func TestConnectorRetries(t *testing.T) {
	tests := []struct {
		name    string
		fail    []int
		retry   string
		posted  bool
		atLeast time.Duration
	}{
		{"429 then accepted", []int{http.StatusTooManyRequests}, "", true, 0},
		{"503 twice then accepted", []int{http.StatusServiceUnavailable, http.StatusServiceUnavailable}, "", true, 0},
		{"Retry-After honoured", []int{http.StatusTooManyRequests}, "1", true, time.Second},
		{"400 not retried", []int{http.StatusBadRequest}, "", false, 0},
		{"gives up after its attempts", []int{503, 503, 503, 503, 503, 503, 503}, "", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn := newFakeConnector(t)
			conn.fail, conn.retry = tt.fail, tt.retry
			bot := newFakeBot()
			a := newTestAdapter(t, bot)
			start := time.Now()
			send(t, a.Handler(), messageActivity(conn.URL, "hi"), "")
			if tt.posted {
				p := conn.next(t)
				if p.Activity["text"] != "echo: hi" {
					t.Errorf("posted %v", p.Activity)
				}
				if took := time.Since(start); took < tt.atLeast {
					t.Errorf("sent after %v, before the Retry-After of %v", took, tt.atLeast)
				}
				return
			}
			<-bot.seen
			_ = a.Close(t.Context())
			conn.none(t)
			conn.mu.Lock()
			defer conn.mu.Unlock()
			if left := len(conn.fail); tt.name == "gives up after its attempts" && left != 1 {
				t.Errorf("%d failures left, want 1 (6 attempts)", left)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 26, 5, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{"-1", 0},
		{"100000", maxRetryAfter},
		{now.Add(10 * time.Second).Format(http.TimeFormat), 10 * time.Second},
		{"soon", 0},
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestEndpointEscapesIDs(t *testing.T) {
	got := endpoint("https://smba.trafficmanager.net/emea/", "v3/conversations", "19:abc@thread.tacv2;messageid=1", "activities", "1/2")
	want := "https://smba.trafficmanager.net/emea/v3/conversations/19:abc@thread.tacv2%3Bmessageid=1/activities/1%2F2"
	if got != want {
		t.Errorf("endpoint = %s, want %s", got, want)
	}
}
