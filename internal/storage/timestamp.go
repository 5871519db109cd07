package storage

import (
	"fmt"
	"time"
)

// timeText is the SQL expression that reads a timestamp column: as text on
// SQLite, where parsing it ourselves is many times faster than the driver's
// general parser, and as is on PostgreSQL.
func (db *DB) timeText(column string) string {
	if db.dialect == SQLite {
		return "CAST(" + column + " AS TEXT)"
	}
	return column
}

// rawTime scans a timestamp as either a time.Time or SQLite's text, and
// parses the text only when asked.
type rawTime struct {
	t     time.Time
	raw   string
	valid bool
}

// Scan implements sql.Scanner.
func (r *rawTime) Scan(v any) error {
	r.valid = v != nil
	r.raw = ""
	switch x := v.(type) {
	case nil:
	case time.Time:
		r.t = x
	case string:
		r.raw = x
	case []byte:
		r.raw = string(x)
	default:
		return fmt.Errorf("timestamp of type %T", v)
	}
	return nil
}

// Time returns the timestamp in UTC.
func (r *rawTime) Time() (time.Time, error) {
	if r.raw == "" {
		return r.t.UTC(), nil
	}
	if t, ok := parseSQLiteTime(r.raw); ok {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999-07:00", time.RFC3339Nano, "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, r.raw); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("unreadable timestamp %q", r.raw)
}

// daysIn returns the number of days of month in year.
func daysIn(month time.Month, year int) int {
	return time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// parseSQLiteTime reads the UTC form the driver writes,
// "2006-01-02 15:04:05.999999+00:00", without the general parser, which is
// several times slower; like it, it refuses impossible dates and times.
func parseSQLiteTime(s string) (time.Time, bool) {
	if len(s) < 25 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':' || s[len(s)-6:] != "+00:00" {
		return time.Time{}, false
	}
	num := func(a, b int) (int, bool) {
		n := 0
		for i := a; i < b; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	year, ok1 := num(0, 4)
	month, ok2 := num(5, 7)
	day, ok3 := num(8, 10)
	hour, ok4 := num(11, 13)
	minute, ok5 := num(14, 16)
	sec, ok6 := num(17, 19)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 ||
		day > daysIn(time.Month(month), year) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	rest := s[19 : len(s)-6]
	if rest != "" {
		if rest[0] != '.' || len(rest) > 10 {
			return time.Time{}, false
		}
		frac, ok := num(20, 19+len(rest))
		if !ok {
			return time.Time{}, false
		}
		for range 10 - len(rest) {
			frac *= 10
		}
		nsec = frac
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC), true
}
