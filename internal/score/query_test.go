package score

import (
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone"
)

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
		got, err := parseTime("since", tt.in, now)
		if tt.ok != (err == nil) || tt.ok && !got.Equal(tt.want) {
			t.Errorf("%q: %v %v, want %v (ok %v)", tt.in, got, err, tt.want, tt.ok)
		}
		if !tt.ok && hone.ErrorField(err) != "since" {
			t.Errorf("%q: %v does not name since", tt.in, err)
		}
	}
}

// A CSV row has every column, cells a spreadsheet would run neutralised,
// numbers as they are.
func TestCSVRecord(t *testing.T) {
	at := time.Date(2026, 1, 10, 15, 4, 5, 123456000, time.UTC)
	text := "=HYPERLINK(\"x\")"
	s := &Score{ID: "s1", WorkshopID: "w1", TraceID: "t1", ConfigID: "c1", Config: "why", DataType: Text, Value: text, Text: &text,
		Comment: "@me", Source: SourceAPI, Author: "-meg", CreatedAt: at}
	var b strings.Builder
	w := csv.NewWriter(&b)
	_ = w.Write(ExportColumns)
	_ = w.Write(csvRecord(s))
	n := -3.5
	_ = w.Write(csvRecord(&Score{ID: "s2", TurnID: "t", ConfigID: "c", Config: "delta", DataType: Numeric, Value: n, Number: &n,
		Source: SourceMetric, CreatedAt: at}))
	w.Flush()
	rows, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{ExportColumns,
		{"s1", "trace", "", "w1", "t1", "", "why", "c1", "text", "'=HYPERLINK(\"x\")", "", "'@me", "api", "'-meg", "2026-01-10T15:04:05.123456Z"},
		{"s2", "turn", "t", "", "", "", "delta", "c", "numeric", "-3.5", "-3.5", "", "metric", "", "2026-01-10T15:04:05.123456Z"}}
	for i := range want {
		if strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d: %q, want %q", i, rows[i], want[i])
		}
	}
}
