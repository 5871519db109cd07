package score

import (
	"context"
	"sync"
)

// Counter counts the scores recorded, for monitoring.
type Counter interface {
	// ScoresRecorded is told that n scores of a config of dataType were
	// recorded from source. A score sent again under its id is not
	// recorded again, and not counted; nor is one whose transaction is
	// rolled back.
	ScoresRecorded(source, dataType string, n int)
}

// tallyKey is the key of the tally a context of Atomically carries.
type tallyKey struct{}

// tally holds the counts of the scores recorded in a transaction of
// Atomically, to report once it is committed.
type tally struct {
	mu     sync.Mutex
	counts map[[2]string]int
}

// tallying returns ctx carrying a tally of its own, or the tally it
// carries already (nil then, for the caller that did not make it).
func (s *Service) tallying(ctx context.Context) (context.Context, *tally) {
	if s.opts.Counter == nil || ctx.Value(tallyKey{}) != nil {
		return ctx, nil
	}
	t := &tally{counts: map[[2]string]int{}}
	return context.WithValue(ctx, tallyKey{}, t), t
}

// count tells the counter of scores just recorded: at once, or, in a
// transaction of Atomically, once it is committed.
func (s *Service) count(ctx context.Context, recorded []*Score) {
	if s.opts.Counter == nil || len(recorded) == 0 {
		return
	}
	t, _ := ctx.Value(tallyKey{}).(*tally)
	if t == nil {
		t = &tally{counts: map[[2]string]int{}}
		defer t.report(s.opts.Counter)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, sc := range recorded {
		t.counts[[2]string{sc.Source, sc.DataType}]++
	}
}

// report tells c of the counts of t; a nil tally reports nothing.
func (t *tally) report(c Counter) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, n := range t.counts {
		c.ScoresRecorded(k[0], k[1], n)
	}
	clear(t.counts)
}
