// Package jobs runs the background work of a capability whose long tasks
// are queued in its store (workshop analyses, learning syntheses): workers
// that take queued runs one by one, wake when one is queued or every two
// seconds, and first queue again the runs a stopped server left running;
// and a heartbeat that tells a run is alive while it works.
package jobs

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// pollEvery is how often an idle worker looks for queued runs that no
// Notify announced (queued by another server of the same database).
const pollEvery = 2 * time.Second

// Loop is a capability's background workers.
type Loop struct {
	// What names the runs in logs ("analyses").
	What string
	Log  *slog.Logger
	// Requeue queues again the runs left running by a stopped server.
	Requeue func(ctx context.Context) (int, error)
	// Next claims and runs the next queued run; false when none is queued
	// (or none may start now).
	Next func(ctx context.Context) (bool, error)

	once     sync.Once
	wake     chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
	workers  sync.WaitGroup
}

func (l *Loop) init() {
	l.once.Do(func() {
		l.wake, l.stop = make(chan struct{}, 1), make(chan struct{})
	})
}

// Start runs n workers (at least one), and each of also, until Stop.
func (l *Loop) Start(n int, also ...func(ctx context.Context)) {
	l.init()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-l.stop
		cancel()
	}()
	for range max(n, 1) {
		l.workers.Go(func() { l.work(ctx) })
	}
	for _, fn := range also {
		l.workers.Go(func() { fn(ctx) })
	}
}

// Stop stops the workers; a run they had started stays running and is
// taken up again by the next start.
func (l *Loop) Stop() {
	l.init()
	l.stopOnce.Do(func() { close(l.stop) })
	l.workers.Wait()
}

// Notify wakes a worker for a run just queued.
func (l *Loop) Notify() {
	l.init()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *Loop) work(ctx context.Context) {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		if n, err := l.Requeue(ctx); err != nil && ctx.Err() == nil {
			l.Log.Warn("requeue interrupted "+l.What, "err", err)
		} else if n > 0 {
			l.Log.Info("interrupted "+l.What+" taken up again or failed", "count", n)
		}
		for ctx.Err() == nil {
			ran, err := l.Next(ctx)
			if err != nil && ctx.Err() == nil {
				l.Log.Warn("take up queued "+l.What, "err", err)
			}
			if !ran || err != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-l.wake:
		case <-t.C:
		}
	}
}

// Beat calls beat every interval, and at once on each kick, until the
// returned stop is called (which waits for a beat under way). beat gets a
// context that ctx's cancellation does not end, so that the last beats of
// a run cut short are still stored.
func Beat(ctx context.Context, every time.Duration, kick <-chan struct{}, beat func(context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-kick:
			case <-t.C:
			}
			beat(context.WithoutCancel(ctx))
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
