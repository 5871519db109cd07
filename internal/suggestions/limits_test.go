package suggestions_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/honehq/hone"
	batch "github.com/honehq/hone/internal/ndjson"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/suggestions"
)

// The statistics are numbers JSON can hold whatever the rollups count,
// times stored before they were bounded and buckets written by hand too.
func TestStatsOfHugeTimes(t *testing.T) {
	for _, ms := range []float64{suggestions.MaxTimeToActionMS, 1e300, 1e308, math.MaxFloat64} {
		rows := suggestions.Rollups([]*suggestions.Record{{MatchType: "none", TimeToActionMS: ms}}, 1)
		st := suggestions.Compute(rows)
		if _, err := json.Marshal(st); err != nil || st.TimeToActionMS.P50 < suggestions.MaxTimeToActionMS {
			t.Errorf("%g ms: %+v, %v", ms, st.TimeToActionMS, err)
		}
	}
	st := suggestions.Compute([]suggestions.Rollup{{Kind: suggestions.KindTimeBucket, K1: "999999999", N: 1}})
	if _, err := json.Marshal(st); err != nil || st.TimeToActionMS.P99 != math.MaxFloat64 {
		t.Errorf("a bucket past every double: %+v, %v", st.TimeToActionMS, err)
	}
}

// A body holds at most ndjson.MaxBatchItems records; a larger one is
// refused whole, read no further than the bound.
func TestReadBounds(t *testing.T) {
	b, err := suggestions.ReadNDJSON(strings.NewReader(strings.Repeat("{}\n\n", batch.MaxBatchItems)))
	if err != nil || b.Lines != batch.MaxBatchItems || len(b.Errors.Listed) != batch.ListedErrors ||
		b.Errors.NotListed != batch.MaxBatchItems-batch.ListedErrors || b.Errors.Listed[1].Line != 3 {
		t.Fatalf("%d lines: %+v, %v", batch.MaxBatchItems, b, err)
	}
	if _, err := suggestions.ReadNDJSON(strings.NewReader(strings.Repeat("{}\n", batch.MaxBatchItems+1))); hone.ErrorCode(err) != hone.ETOOLARGE ||
		!strings.Contains(err.Error(), "10000") {
		t.Errorf("one line more: %v", err)
	}
	if _, err := suggestions.ReadJSON(strings.NewReader("[" + strings.Repeat("{},", batch.MaxBatchItems) + "{}]")); hone.ErrorCode(err) != hone.ETOOLARGE {
		t.Errorf("one element more: %v", err)
	}
}

// An import reads files of any size, a chunk at a time, and lists the
// first errors of each file.
func TestImportIsNotBoundLikeARequest(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		svc := suggestions.NewService(db.Suggestions(), suggestions.Options{HistoryRoot: t.TempDir()})
		recs := specRecords(batch.MaxBatchItems + 5)
		var body strings.Builder
		for _, r := range recs {
			line, _ := json.Marshal(r)
			body.Write(line)
			body.WriteString("\n{}\n")
		}
		file := filepath.Join(t.TempDir(), "big.jsonl")
		if err := os.WriteFile(file, []byte(body.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		res, warnings, err := svc.Import(ctx, file, nil)
		if err != nil || res.Accepted != len(recs) || len(res.Errors) != batch.ListedErrors || res.Refused() != len(recs) ||
			len(warnings) != batch.ListedErrors || warnings[0].Line != 2 {
			t.Fatalf("import: accepted %d, %d listed, %d refused, %d warnings, %v", res.Accepted, len(res.Errors), res.Refused(), len(warnings), err)
		}
	})
}
