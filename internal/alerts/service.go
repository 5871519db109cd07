// Package alerts is the reach-out budget of the learning-loop spec: an
// application asks whether a conversation may get a proactive alert now,
// records the alerts it sends, and testers react to them (!ack, 👍, 👎);
// the reactions set each conversation's alert quality score, which sizes its
// daily budget, and a type that draws 👎 again and again is paused.
package alerts

import (
	"context"
	"log/slog"
	"time"
)

// Options configure a Service.
type Options struct {
	Logger *slog.Logger
	Now    func() time.Time
	// Budget are the reach-out budget's rules (zero fields take their
	// defaults).
	Budget BudgetRules
	// Deliver, when set, is told of every new alert the budget allowed,
	// once it is stored: a chat platform hone runs on then shows it.
	Deliver func(ctx context.Context, a *Alert)
}

// Service is the alerts capability, for every face.
type Service struct {
	store Store
	turns Turns
	opts  Options
	log   *slog.Logger
}

// NewService returns the alerts capability over store, reading the
// conversations' turns from turns.
func NewService(store Store, turns Turns, opts Options) *Service {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	opts.Budget = opts.Budget.WithDefaults()
	return &Service{store: store, turns: turns, opts: opts, log: opts.Logger}
}

// now is the time as the store keeps it: UTC, to the microsecond.
func (s *Service) now() time.Time { return s.opts.Now().UTC().Truncate(time.Microsecond) }
