package workshop

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/jobs"
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
func (s *Service) Start(workers int) { s.jobs.Start(workers) }

// Stop stops the background workers; a run they had started stays
// running and is taken up again by the next start.
func (s *Service) Stop() { s.jobs.Stop() }

// jobLoop is the background side of the analysis queue.
func (s *Service) jobLoop() *jobs.Loop {
	return &jobs.Loop{What: "analyses", Log: s.log,
		Requeue: func(ctx context.Context) (int, error) {
			return s.store.RequeueStale(ctx, s.opts.Now().Add(-s.opts.StaleAfter), maxRunAttempts)
		},
		Next: func(ctx context.Context) (bool, error) {
			a, err := s.store.ClaimAnalysis(ctx, "")
			if hone.ErrorCode(err) == hone.ENOTFOUND {
				return false, nil
			} else if err != nil {
				return false, err
			}
			s.execute(ctx, a)
			return true, nil
		}}
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
	var progress atomic.Pointer[[2]int]
	progress.Store(&[2]int{})
	kick := make(chan struct{}, 1)
	stopBeat := jobs.Beat(ctx, heartbeatEvery, kick, func(ctx context.Context) {
		p := progress.Load()
		if err := s.store.Heartbeat(ctx, a.ID, p[0], p[1]); err != nil {
			s.log.Warn("analysis heartbeat", "analysis_id", a.ID, "err", err)
		}
	})
	err := s.analyse(ctx, a, func(done, total int) {
		progress.Store(&[2]int{done, total})
		select {
		case kick <- struct{}{}:
		default:
		}
	})
	stopBeat()
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
