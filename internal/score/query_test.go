package score

import (
	"encoding/csv"
	"strings"
	"testing"
	"time"
)

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
