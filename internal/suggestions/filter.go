package suggestions

import (
	"strconv"
	"strings"
	"time"

	"github.com/honehq/hone"
)

// MaxAgeDays bounds an age in days, a hundred years.
const MaxAgeDays = 36500

// ParseTime reads a time bound: an RFC 3339 time, a date (midnight UTC),
// or an age before now such as 24h, 90m or 7d.
func ParseTime(field, v string, now time.Time) (time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t.UTC(), nil
	}
	if days, ok := strings.CutSuffix(v, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 && n <= MaxAgeDays {
			return now.Add(-time.Duration(n) * 24 * time.Hour).UTC(), nil
		}
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(-d).UTC(), nil
	}
	return time.Time{}, hone.FieldError(field, "%s must be a time (2026-01-10T15:04:05Z), a date (2026-01-10) or an age (24h, 7d), not %q", field, v)
}

// CheckFilter reports the first field of a filter that is wrong.
func CheckFilter(f Filter) error {
	if f.MatchType != "" && !validMatch(f.MatchType) {
		return hone.FieldError("match_type", "match_type must be exact, partial, prefix or none, not %q", f.MatchType)
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Until.After(f.Since) {
		return hone.FieldError("until", "until must be after since")
	}
	return nil
}
