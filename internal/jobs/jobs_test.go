package jobs

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// queue is a queue of runs in memory.
type queue struct {
	mu       sync.Mutex
	queued   int
	ran      int
	requeues atomic.Int32
	fail     bool
}

func (q *queue) next(context.Context) (bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.fail {
		q.fail = false
		return false, errors.New("the store is down")
	}
	if q.queued == 0 {
		return false, nil
	}
	q.queued--
	q.ran++
	return true, nil
}

func (q *queue) add(n int) {
	q.mu.Lock()
	q.queued += n
	q.mu.Unlock()
}

func (q *queue) done() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.ran
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen within 5 s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestLoopRunsWhatIsQueued(t *testing.T) {
	q := &queue{queued: 3, fail: true}
	l := &Loop{What: "runs", Log: slog.New(slog.DiscardHandler), Next: q.next,
		Requeue: func(context.Context) (int, error) { q.requeues.Add(1); return 0, nil }}
	var also atomic.Bool
	l.Start(2, func(ctx context.Context) {
		also.Store(true)
		<-ctx.Done()
	})
	// A failing store stops one round, not the loop: the runs queued
	// before the start are taken up on the next wake or poll.
	waitFor(t, "the runs queued before the start", func() bool { return q.done() == 3 })
	q.add(2)
	start := time.Now()
	l.Notify()
	waitFor(t, "the runs queued later", func() bool { return q.done() == 5 })
	if time.Since(start) > pollEvery {
		t.Errorf("Notify did not wake a worker: %v", time.Since(start))
	}
	if q.requeues.Load() < 2 || !also.Load() {
		t.Errorf("requeues %d (one per worker at least), also ran %v", q.requeues.Load(), also.Load())
	}
	stopped := make(chan struct{})
	go func() { l.Stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("Stop did not return")
	}
	l.Stop()
	l.Notify()
}

func TestBeat(t *testing.T) {
	var beats atomic.Int32
	kick := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	var live atomic.Bool
	stop := Beat(ctx, time.Hour, kick, func(ctx context.Context) {
		beats.Add(1)
		live.Store(ctx.Err() == nil)
	})
	kick <- struct{}{}
	waitFor(t, "a beat on a kick", func() bool { return beats.Load() == 1 })
	kick <- struct{}{}
	waitFor(t, "a second kick", func() bool { return beats.Load() == 2 })
	if !live.Load() {
		t.Error("a beat got a cancelled context")
	}
	stop()
	cancel()
	n := beats.Load()
	time.Sleep(10 * time.Millisecond)
	if beats.Load() != n {
		t.Error("a beat after stop")
	}
	var ticks atomic.Int32
	stop = Beat(context.Background(), time.Millisecond, nil, func(context.Context) { ticks.Add(1) })
	waitFor(t, "beats on the interval", func() bool { return ticks.Load() >= 3 })
	stop()
}
