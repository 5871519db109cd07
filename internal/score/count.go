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

// tally holds the counts and the scores recorded in a transaction of
// Atomically, to report once it is committed.
type tally struct {
	mu     sync.Mutex
	counts map[[2]string]int
	scores []*Score
}

// watching reports whether anyone is told of the scores recorded.
func (s *Service) watching() bool { return s.opts.Counter != nil || len(s.committed) > 0 }

// tallying returns ctx carrying a tally of its own, or the tally it
// carries already (nil then, for the caller that did not make it).
func (s *Service) tallying(ctx context.Context) (context.Context, *tally) {
	if !s.watching() || ctx.Value(tallyKey{}) != nil {
		return ctx, nil
	}
	t := &tally{counts: map[[2]string]int{}}
	return context.WithValue(ctx, tallyKey{}, t), t
}

// count tells the counter and the OnCommit functions of scores just
// recorded: at once, or, in a transaction of Atomically, once it is
// committed.
func (s *Service) count(ctx context.Context, recorded []*Score) {
	if !s.watching() || len(recorded) == 0 {
		return
	}
	t, _ := ctx.Value(tallyKey{}).(*tally)
	if t == nil {
		t = &tally{counts: map[[2]string]int{}}
		defer t.report(s)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, sc := range recorded {
		t.counts[[2]string{sc.Source, sc.DataType}]++
	}
	t.scores = append(t.scores, recorded...)
}

// report tells s's counter of the counts of t and its OnCommit functions
// of its scores; a nil tally reports nothing.
func (t *tally) report(s *Service) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if c := s.opts.Counter; c != nil {
		for k, n := range t.counts {
			c.ScoresRecorded(k[0], k[1], n)
		}
	}
	clear(t.counts)
	if len(t.scores) > 0 {
		for _, fn := range s.committed {
			fn(t.scores)
		}
	}
	t.scores = nil
}
