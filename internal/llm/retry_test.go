package llm_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/honehq/hone/internal/llm"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
		ok     bool
	}{
		{"none", http.Header{}, 0, false},
		{"seconds", http.Header{"Retry-After": {"2"}}, 2 * time.Second, true},
		{"fractional seconds", http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond, true},
		{"zero", http.Header{"Retry-After": {"0"}}, 0, true},
		{"http date", http.Header{"Retry-After": {now.Add(7 * time.Second).Format(http.TimeFormat)}}, 7 * time.Second, true},
		{"past date", http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 0, true},
		{"ms wins", http.Header{"Retry-After": {"9"}, "Retry-After-Ms": {"150"}}, 150 * time.Millisecond, true},
		{"huge", http.Header{"Retry-After": {"1e300"}}, 24 * time.Hour, true},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0, false},
		{"negative", http.Header{"Retry-After": {"-3"}}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := llm.RetryAfter(tt.header, now)
			if got != tt.want || ok != tt.ok {
				t.Errorf("RetryAfter() = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
