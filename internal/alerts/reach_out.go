package alerts

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
)

// BudgetRules are the reach-out budget's rules in force.
func (s *Service) BudgetRules() BudgetRules { return s.opts.Budget }

// Permit answers whether the conversation may get an alert of the type
// now: not when the type is paused, nor when the conversation got its
// daily budget of alerts in the last 24 hours.
func (s *Service) Permit(ctx context.Context, in PermitInput) (*Permit, error) {
	if err := cleanPermit(&in.ConversationID, &in.Type); err != nil {
		return nil, err
	}
	return s.permit(ctx, in.ConversationID, in.Type)
}

func (s *Service) permit(ctx context.Context, conversationID, typ string) (*Permit, error) {
	r, now := s.opts.Budget, s.now()
	t, err := s.store.AlertType(ctx, typ)
	if err != nil {
		return nil, err
	}
	scored, err := s.store.ScoredAlerts(ctx, conversationID, now.Add(-r.Grace), r.Window)
	if err != nil {
		return nil, err
	}
	p := &Permit{ConversationID: conversationID, Type: typ, TypePaused: t.Paused}
	p.Score, p.Scored = QualityScore(scored, now, r.Grace, r.Window)
	p.Budget = DailyBudget(p.Score, r)
	sent, newest, err := s.store.SentSince(ctx, conversationID, WindowStart(now), p.Budget)
	if err != nil {
		return nil, err
	}
	p.Sent, p.Remaining = sent, max(0, p.Budget-sent)
	if at, spent := RetryAt(newest, p.Budget); spent && sent >= p.Budget {
		p.RetryAt = &at
	}
	switch {
	case t.Paused:
		p.Reason = fmt.Sprintf("Alerts of type %s are paused: %s. Enable them again with hone alerts enable %s.", typ, t.Reason, typ)
	case p.Remaining == 0:
		p.Reason = fmt.Sprintf("The conversation got %d alerts in the last 24 hours, its whole budget of %d at an alert_quality_score of %.2f; the next is allowed at %s.",
			sent, p.Budget, p.Score, p.RetryAt.UTC().Format("2006-01-02 15:04:05Z"))
	default:
		p.Allowed = true
		p.Reason = fmt.Sprintf("%d of the conversation's budget of %d alerts in 24 hours remain.", p.Remaining, p.Budget)
	}
	return p, nil
}

// RecordAlert records an alert the application sent. Recording the same
// id again changes nothing and returns the alert first recorded.
func (s *Service) RecordAlert(ctx context.Context, in AlertInput) (*Alert, error) {
	if err := in.clean(); err != nil {
		return nil, err
	}
	p, err := s.permit(ctx, in.ConversationID, in.Type)
	if err != nil {
		return nil, err
	}
	a := &Alert{ID: cmp.Or(in.ID, hone.NewID(idLength)), ConversationID: in.ConversationID, Type: in.Type, Text: in.Text,
		TesterID: in.TesterID, SentAt: s.now(), WithinBudget: p.Allowed}
	deliver := s.opts.Deliver != nil && a.WithinBudget
	if deliver && in.ID != "" {
		if _, err := s.store.Alert(ctx, in.ID); err == nil {
			deliver = false
		}
	}
	stored, err := s.store.AddAlert(ctx, a)
	if err == nil && deliver {
		s.opts.Deliver(ctx, stored)
	}
	return stored, err
}

// Alert returns an alert with its reactions.
func (s *Service) Alert(ctx context.Context, id string) (*Alert, error) {
	return s.store.Alert(ctx, cleanID(id))
}

// idLength is the length of the ids hone gives alerts.
const idLength = 12

// cleanID is an id from a path as the store may look it up: NUL and bytes
// that are not UTF-8 replaced, so that it names nothing rather than fails.
func cleanID(id string) string { return strings.TrimSpace(hone.CleanText(id)) }

// React stores a tester's reaction to an alert (one per tester, which they
// may change) and pauses the alert's type when its latest reactions are
// all 👎.
func (s *Service) React(ctx context.Context, alertID string, in ReactionInput) (*Reacted, error) {
	if err := in.clean(); err != nil {
		return nil, err
	}
	a, err := s.store.Alert(ctx, cleanID(alertID))
	if err != nil {
		return nil, err
	}
	return s.react(ctx, a, in)
}

func (s *Service) react(ctx context.Context, a *Alert, in ReactionInput) (*Reacted, error) {
	now := s.now()
	r := &AlertReaction{AlertID: a.ID, TesterID: in.TesterID, Reaction: in.Reaction, ReactedAt: now}
	if err := s.store.React(ctx, r); err != nil {
		return nil, err
	}
	out := &Reacted{Reaction: r, Type: a.Type, Alert: a}
	t, err := s.store.AlertType(ctx, a.Type)
	if err != nil {
		return nil, err
	}
	out.TypePaused, out.PauseNote = t.Paused, t.Reason
	if t.Paused || in.Reaction != ReactionDown {
		return out, nil
	}
	var since time.Time
	if t.EnabledAt != nil {
		since = *t.EnabledAt
	}
	latest, err := s.store.TypeReactions(ctx, a.Type, since, s.opts.Budget.PauseAfter)
	if err != nil {
		return nil, err
	}
	if ConsistentlyNegative(latest, s.opts.Budget.PauseAfter) {
		out.PauseNote = PauseReason(s.opts.Budget.PauseAfter)
		if err := s.store.PauseType(ctx, a.Type, out.PauseNote, now); err != nil {
			return nil, err
		}
		out.Paused, out.TypePaused = true, true
		s.log.Info("alert type paused", "type", a.Type, "reason", out.PauseNote)
	}
	return out, nil
}

// ErrNoAlert answers a chat reaction when the conversation has no alert to
// react to.
var ErrNoAlert = hone.Errorf(hone.ENOTFOUND, "There is no alert to react to in this conversation.")

// ReactLatest reacts to the conversation's latest alert, as `!ack` does in
// chat; ErrNoAlert when it has none still in its grace period.
func (s *Service) ReactLatest(ctx context.Context, t capture.Tester, reaction string) (*Reacted, error) {
	in := ReactionInput{TesterID: t.TesterID, Reaction: reaction}
	if err := in.clean(); err != nil {
		return nil, err
	}
	a, err := s.store.LatestAlert(ctx, t.ConversationID)
	if hone.ErrorCode(err) == hone.ENOTFOUND || err == nil && Expired(a.SentAt, s.now(), s.opts.Budget.Grace) {
		return nil, ErrNoAlert
	} else if err != nil {
		return nil, err
	}
	return s.react(ctx, a, in)
}

// alertAfterTurn returns the conversation's latest alert when it came after
// the latest response and is still in its grace period: 👍 and 👎 then
// rate the alert, not the response before it.
func (s *Service) alertAfterTurn(ctx context.Context, conversationID string) (*Alert, error) {
	a, err := s.store.LatestAlert(ctx, conversationID)
	if hone.ErrorCode(err) == hone.ENOTFOUND {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if Expired(a.SentAt, s.now(), s.opts.Budget.Grace) {
		return nil, nil
	}
	session, err := s.turns.CurrentSession(ctx, conversationID)
	if hone.ErrorCode(err) == hone.ENOTFOUND {
		return a, nil
	} else if err != nil {
		return nil, err
	}
	latest, err := s.turns.RecentTurns(ctx, session.ID, 1)
	if err != nil {
		return nil, err
	}
	if len(latest) > 0 && latest[0].Timestamp.After(a.SentAt) {
		return nil, nil
	}
	return a, nil
}

// AlertTypes lists the alert types with their reactions and pauses.
func (s *Service) AlertTypes(ctx context.Context) ([]*AlertType, error) {
	return s.store.AlertTypes(ctx)
}

// EnableAlertType ends a type's pause; only reactions from now on count
// towards pausing it again. ECONFLICT when the type is not paused.
func (s *Service) EnableAlertType(ctx context.Context, typ string) (*AlertType, error) {
	conv := "-"
	if err := cleanPermit(&conv, &typ); err != nil {
		return nil, err
	}
	t, err := s.store.AlertType(ctx, typ)
	if err != nil {
		return nil, err
	}
	if !t.Paused {
		return nil, hone.Errorf(hone.ECONFLICT, "alert type %q is not paused", typ)
	}
	if err := s.store.EnableType(ctx, typ, s.now()); err != nil {
		return nil, err
	}
	s.log.Info("alert type enabled", "type", typ)
	return s.store.AlertType(ctx, typ)
}
