package timebound

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone"
)

// Parse takes times, dates and ages, refuses anything else naming the
// field, and Pattern says the same.
func TestParseTime(t *testing.T) {
	now := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"", time.Time{}, true},
		{"2026-01-09T15:04:05Z", time.Date(2026, 1, 9, 15, 4, 5, 0, time.UTC), true},
		{"2026-01-09T15:04:05.5+02:00", time.Date(2026, 1, 9, 13, 4, 5, 5e8, time.UTC), true},
		{"2026-01-09", time.Date(2026, 1, 9, 0, 0, 0, 0, time.UTC), true},
		{"7d", now.Add(-7 * 24 * time.Hour), true},
		{"0d", now, true},
		{"36500d", now.Add(-36500 * 24 * time.Hour), true},
		{"36501d", time.Time{}, false},
		{"90m", now.Add(-90 * time.Minute), true},
		{"1h30m", now.Add(-90 * time.Minute), true},
		{" 24h ", now.Add(-24 * time.Hour), true},
		{"-1h", time.Time{}, false},
		{"-1d", time.Time{}, false},
		{"yesterday", time.Time{}, false},
		{"2026-13-01", time.Time{}, false},
	} {
		got, err := Parse("since", tt.in, now)
		if tt.ok != (err == nil) || tt.ok && !got.Equal(tt.want) {
			t.Errorf("%q: %v %v, want %v (ok %v)", tt.in, got, err, tt.want, tt.ok)
		}
		if m := regexp.MustCompile(Pattern).MatchString(strings.TrimSpace(tt.in)); tt.in != "" && m != tt.ok {
			t.Errorf("%q: Pattern matches %v, Parse takes it %v", tt.in, m, tt.ok)
		}
		if !tt.ok && hone.ErrorField(err) != "since" {
			t.Errorf("%q: %v does not name since", tt.in, err)
		}
	}
}
