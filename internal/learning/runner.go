package learning

import (
	"context"
	"errors"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/jobs"
)

// maxRunAttempts is how often a synthesis interrupted by a crash or a
// restart is started again before it is marked failed.
const maxRunAttempts = 2

// heartbeatEvery is how often a running synthesis says it is alive.
const heartbeatEvery = 5 * time.Second

// Start runs queued syntheses in the background until Stop, one at a time;
// every, when not 0, also queues one at that interval when corrections are
// pending. A run whose server stopped is queued again, once, then marked
// failed, so that no run stays "running" for ever.
func (s *Service) Start(every time.Duration) {
	if every > 0 {
		s.jobs.Start(1, func(ctx context.Context) { s.schedule(ctx, every) })
		return
	}
	s.jobs.Start(1)
}

// Stop stops the background work; a run it had started stays running and
// is taken up again by the next start.
func (s *Service) Stop() { s.jobs.Stop() }

// jobLoop is the background side of the synthesis queue.
func (s *Service) jobLoop() *jobs.Loop {
	return &jobs.Loop{What: "syntheses", Log: s.log,
		Requeue: func(ctx context.Context) (int, error) {
			return s.store.RequeueStale(ctx, s.opts.Now().Add(-s.opts.StaleAfter), maxRunAttempts)
		},
		Next: func(ctx context.Context) (bool, error) {
			r, err := s.store.ClaimRun(ctx, "")
			if code := hone.ErrorCode(err); code == hone.ENOTFOUND || code == hone.ECONFLICT {
				return false, nil
			} else if err != nil {
				return false, err
			}
			s.execute(ctx, r)
			return true, nil
		}}
}

// schedule queues a synthesis every interval when corrections are pending.
func (s *Service) schedule(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pending, err := s.store.Corrections(ctx, true, 1)
		if err != nil || len(pending) == 0 {
			if err != nil && ctx.Err() == nil {
				s.log.Warn("scheduled synthesis: read pending corrections", "err", err)
			}
			continue
		}
		if _, err := s.Synthesize(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("scheduled synthesis", "err", err)
		}
	}
}

// execute runs a claimed synthesis and stores its outcome, or its failure
// with nothing else changed. A run cut short by ctx (a shutdown) is left
// running, for a later start to take up.
func (s *Service) execute(ctx context.Context, r *Run) {
	stopBeat := jobs.Beat(ctx, heartbeatEvery, nil, func(ctx context.Context) {
		if err := s.store.Heartbeat(ctx, r.ID); err != nil {
			s.log.Warn("synthesis heartbeat", "run_id", r.ID, "err", err)
		}
	})
	err := s.synthesize(ctx, r)
	stopBeat()
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return
	}
	if err != nil {
		s.log.Warn("synthesis failed; no correction is marked processed", "run_id", r.ID, "err", err)
		if ferr := s.store.FailRun(context.WithoutCancel(ctx), r.ID, hone.ErrorMessage(err)); ferr != nil {
			s.log.Error("save a failed synthesis", "run_id", r.ID, "err", ferr)
		}
		return
	}
	s.changed()
}
