package proxy

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/honehq/hone/internal/capture"
)

// batches is a recorder that keeps the size of each write, the first held
// until release is closed.
type batches struct {
	mu      sync.Mutex
	sizes   []int
	held    chan struct{}
	release chan struct{}
}

func (b *batches) RecordBatch(_ context.Context, ins []capture.TurnInput, _ string) ([]capture.TurnResult, error) {
	b.mu.Lock()
	first := len(b.sizes) == 0
	b.sizes = append(b.sizes, len(ins))
	b.mu.Unlock()
	if first {
		close(b.held)
		<-b.release
	}
	return make([]capture.TurnResult, len(ins)), nil
}

func TestQueueWritesInBoundedBatches(t *testing.T) {
	const turns = 300
	rec := &batches{held: make(chan struct{}), release: make(chan struct{})}
	q := NewQueue(rec, 0, nil)
	q.Start()
	defer q.Stop()
	turn := func(i int) capture.TurnInput {
		return capture.TurnInput{ID: fmt.Sprintf("turn-%d", i), ConversationID: "c", TesterID: "t",
			UserMessage: "How do I resign?", Response: "Write to HR."}
	}
	q.Add(turn(0))
	<-rec.held
	for i := 1; i < turns; i++ {
		q.Add(turn(i))
	}
	close(rec.release)
	q.Flush(context.Background())
	rec.mu.Lock()
	defer rec.mu.Unlock()
	total, largest := 0, 0
	for _, n := range rec.sizes {
		total += n
		largest = max(largest, n)
	}
	if total != turns {
		t.Fatalf("wrote %d turns in %v, want %d", total, rec.sizes, turns)
	}
	if largest != maxBatch {
		t.Errorf("the largest write had %d turns (%v): %d waiting turns should be written %d at a time", largest, rec.sizes, turns-1, maxBatch)
	}
	if len(rec.sizes) > 1+(turns-1+maxBatch-1)/maxBatch+1 {
		t.Errorf("%d writes for %d turns (%v): the waiting turns were not gathered", len(rec.sizes), turns, rec.sizes)
	}
}
