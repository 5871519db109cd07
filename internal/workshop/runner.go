package workshop

import (
	"context"
	"errors"
	"time"

	"github.com/honehq/hone"
)

// maxRunAttempts is how often an analysis interrupted by a crash or a
// restart is started again before it is marked failed.
const maxRunAttempts = 2

// heartbeatEvery is how often a running analysis says it is alive.
const heartbeatEvery = 5 * time.Second

// Start runs queued analyses in the background with workers goroutines
// until Stop. A run whose server stopped (its heartbeat is older than
// Options.StaleAfter) is queued again, once, then marked failed, so that
// no run stays "running" for ever.
func (s *Service) Start(workers int) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-s.stop
		cancel()
	}()
	for range max(workers, 1) {
		s.workers.Go(func() { s.work(ctx) })
	}
}

// Stop stops the background workers; a run they had started stays
// running and is taken up again by the next start.
func (s *Service) Stop() {
	s.stopOnce.Do(func() { close(s.stop) })
	s.workers.Wait()
}

// notify wakes a worker for a new run.
func (s *Service) notify() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Service) work(ctx context.Context) {
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		if n, err := s.store.RequeueStale(ctx, s.opts.Now().Add(-s.opts.StaleAfter), maxRunAttempts); err != nil && ctx.Err() == nil {
			s.log.Warn("requeue interrupted analyses", "err", err)
		} else if n > 0 {
			s.log.Info("interrupted analyses taken up again or failed", "count", n)
		}
		for ctx.Err() == nil {
			a, err := s.store.ClaimAnalysis(ctx, "")
			if hone.ErrorCode(err) == hone.ENOTFOUND {
				break
			}
			if err != nil {
				if ctx.Err() == nil {
					s.log.Warn("claim an analysis", "err", err)
				}
				break
			}
			s.execute(ctx, a)
		}
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-t.C:
		}
	}
}

// RunAnalysis runs the queued analysis id here and now (the CLI's way),
// and returns it finished; facilitators only.
func (s *Service) RunAnalysis(ctx context.Context, workshopID, id string) (*Analysis, error) {
	if _, _, _, err := s.facilitator(ctx, workshopID, ""); err != nil {
		return nil, err
	}
	if _, err := s.store.Analysis(ctx, workshopID, id); err != nil {
		return nil, err
	}
	a, err := s.store.ClaimAnalysis(ctx, id)
	if err != nil {
		return nil, err
	}
	s.execute(ctx, a)
	return s.store.Analysis(ctx, workshopID, id)
}

// execute runs a claimed analysis and stores its result. A run cut short
// by ctx (a shutdown) is left running, for a later start to take up.
func (s *Service) execute(ctx context.Context, a *Analysis) {
	beat, stopBeat := context.WithCancel(ctx)
	progress := make(chan [2]int, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		var last [2]int
		for {
			select {
			case <-beat.Done():
				return
			case last = <-progress:
			case <-t.C:
			}
			if err := s.store.Heartbeat(context.WithoutCancel(beat), a.ID, last[0], last[1]); err != nil {
				s.log.Warn("analysis heartbeat", "analysis_id", a.ID, "err", err)
			}
		}
	}()
	err := s.analyse(ctx, a, func(done, total int) {
		select {
		case progress <- [2]int{done, total}:
		default:
		}
	})
	stopBeat()
	<-done
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return
	}
	a.UpdatedAt = s.opts.Now().UTC()
	if err != nil {
		a.Status, a.Error = StatusFailed, hone.ErrorMessage(err)
		s.log.Warn("analysis failed", "analysis_id", a.ID, "workshop_id", a.WorkshopID, "err", err)
	} else {
		a.Status = StatusDone
	}
	if err := s.store.SaveAnalysis(context.WithoutCancel(ctx), a); err != nil {
		s.log.Error("save analysis", "analysis_id", a.ID, "err", err)
	}
}
