// Package timebound reads the time bounds of list filters (since, until)
// the same way on every face: an RFC 3339 time, a date, or an age before
// now such as 90m, 24h or 7d.
package timebound

import (
	"strconv"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/jsonschema"
)

// MaxAgeDays bounds an age in days, a hundred years.
const MaxAgeDays = 36500

// Parse reads the bound v of the filter field: an RFC 3339 time, a date
// (midnight UTC), or an age before now such as 24h, 90m or 7d; "" (or only
// white space) is no bound, the zero time. Anything else is an error
// naming field.
func Parse(field, v string, now time.Time) (time.Time, error) {
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

// Pattern is a bound as Parse takes it, as a regular expression: an RFC
// 3339 time or a date, an age in days up to MaxAgeDays, or an age as
// time.ParseDuration reads one (not negative).
var Pattern = `^(?:[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])` +
	`(?:T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9]))?` +
	`|\+?0*` + jsonschema.UpTo(MaxAgeDays) + `d` +
	`|\+?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+|[+-]?0)$`
