package storage

import (
	"context"
	"strings"
	"testing"
)

// On SQLite, a turn is found by its trace id, and by its trace and span
// id, through the trace index.
func TestTurnLookupsByTraceUseTheIndex(t *testing.T) {
	db := openWriter(t)
	ctx := context.Background()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	for _, where := range []string{"trace_id = ?", "trace_id = ? AND span_id = ?"} {
		args := []any{"4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"}[:strings.Count(where, "?")]
		rows, err := db.read.QueryContext(ctx, `EXPLAIN QUERY PLAN SELECT id FROM turns WHERE `+where, args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		if got := strings.Join(plan, "; "); !strings.Contains(got, "USING INDEX turns_trace") {
			t.Errorf("WHERE %s: plan %q", where, got)
		}
	}
}
