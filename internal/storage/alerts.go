package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/honehq/hone/internal/alerts"
)

// AlertStore keeps the proactive alerts of the reach-out budget.
type AlertStore struct{ db *DB }

// Alerts returns the alerts capability's store.
func (db *DB) Alerts() *AlertStore { return &AlertStore{db} }

var _ alerts.Store = (*AlertStore)(nil)

func (as *AlertStore) alertColumns() string {
	return `a.id, a.conversation_id, a.type, a.text, a.tester_id, a.within_budget, ` + as.db.timeText("a.sent_at")
}

func scanAlert(row scanner) (*alerts.Alert, error) {
	var a alerts.Alert
	var sent rawTime
	if err := row.Scan(&a.ID, &a.ConversationID, &a.Type, &a.Text, &a.TesterID, &a.WithinBudget, &sent); err != nil {
		return nil, err
	}
	var err error
	a.SentAt, err = sent.Time()
	return &a, err
}

// AddAlert stores a sent alert, or returns the one with its id.
func (as *AlertStore) AddAlert(ctx context.Context, a *alerts.Alert) (*alerts.Alert, error) {
	ctx, cancel := as.db.limit(ctx)
	defer cancel()
	err := as.db.update(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `INSERT INTO alerts (id, conversation_id, type, text, tester_id, within_budget, sent_at)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			a.ID, a.ConversationID, a.Type, a.Text, a.TesterID, a.WithinBudget, a.SentAt.UTC())
		if err != nil {
			return fmt.Errorf("record alert: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return as.Alert(ctx, a.ID)
}

// Alert returns an alert with its reactions.
func (as *AlertStore) Alert(ctx context.Context, id string) (*alerts.Alert, error) {
	ctx, cancel := as.db.limit(ctx)
	defer cancel()
	a, err := scanAlert(as.db.queryRow(ctx, `SELECT `+as.alertColumns()+` FROM alerts a WHERE a.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("alert", id)
	} else if err != nil {
		return nil, dbError(fmt.Errorf("find alert %q: %w", id, err))
	}
	rows, err := as.db.query(ctx, `SELECT alert_id, tester_id, reaction, `+as.db.timeText("reacted_at")+`
		FROM alert_reactions WHERE alert_id = ? ORDER BY reacted_at, tester_id`, id)
	a.Reactions, err = collect(rows, err, "alert reactions", func(row scanner) (*alerts.AlertReaction, error) {
		var r alerts.AlertReaction
		var at rawTime
		if err := row.Scan(&r.AlertID, &r.TesterID, &r.Reaction, &at); err != nil {
			return nil, err
		}
		var err error
		r.ReactedAt, err = at.Time()
		return &r, err
	})
	return a, err
}

// LatestAlert returns the conversation's latest alert.
func (as *AlertStore) LatestAlert(ctx context.Context, conversationID string) (*alerts.Alert, error) {
	ctx, cancel := as.db.limit(ctx)
	defer cancel()
	a, err := scanAlert(as.db.queryRow(ctx, `SELECT `+as.alertColumns()+` FROM alerts a
		WHERE a.conversation_id = ? ORDER BY a.sent_at DESC, a.id DESC LIMIT 1`, conversationID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("alert of conversation", conversationID)
	} else if err != nil {
		return nil, dbError(fmt.Errorf("find the latest alert: %w", err))
	}
	return a, nil
}

// ScoredAlerts returns, newest first, up to limit of the conversation's
// alerts that count in its score, with their reactions.
func (as *AlertStore) ScoredAlerts(ctx context.Context, conversationID string, expired time.Time, limit int) ([]alerts.ScoredAlert, error) {
	ctx, cancel := as.db.limit(ctx)
	defer cancel()
	rows, err := as.db.query(ctx, `SELECT a.id, `+as.db.timeText("a.sent_at")+` FROM alerts a
		WHERE a.conversation_id = ? AND (a.sent_at <= ? OR EXISTS (SELECT 1 FROM alert_reactions r WHERE r.alert_id = a.id))
		ORDER BY a.sent_at DESC, a.id DESC LIMIT ?`, conversationID, expired.UTC(), limit)
	alerts, err := collect(rows, err, "scored alerts", func(row scanner) (alerts.ScoredAlert, error) {
		var a alerts.ScoredAlert
		var at rawTime
		if err := row.Scan(&a.ID, &at); err != nil {
			return a, err
		}
		var err error
		a.SentAt, err = at.Time()
		return a, err
	})
	if err != nil || len(alerts) == 0 {
		return alerts, err
	}
	ids := make([]string, len(alerts))
	at := make(map[string]int, len(alerts))
	for i, a := range alerts {
		ids[i], at[a.ID] = a.ID, i
	}
	rows, err = as.db.query(ctx, `SELECT alert_id, reaction FROM alert_reactions WHERE alert_id IN (`+placeholders(len(ids))+`)`,
		anySlice(ids)...)
	if _, err := collect(rows, err, "alert reactions", func(row scanner) (struct{}, error) {
		var id, reaction string
		if err := row.Scan(&id, &reaction); err != nil {
			return struct{}{}, err
		}
		alerts[at[id]].Reactions = append(alerts[at[id]].Reactions, reaction)
		return struct{}{}, nil
	}); err != nil {
		return nil, err
	}
	return alerts, nil
}

// SentSince counts the conversation's alerts sent after since, and returns
// the newest limit send times.
func (as *AlertStore) SentSince(ctx context.Context, conversationID string, since time.Time, limit int) (int, []time.Time, error) {
	ctx, cancel := as.db.limit(ctx)
	defer cancel()
	var n int
	if err := as.db.queryRow(ctx, `SELECT COUNT(*) FROM alerts WHERE conversation_id = ? AND sent_at > ?`,
		conversationID, since.UTC()).Scan(&n); err != nil {
		return 0, nil, dbError(fmt.Errorf("count alerts: %w", err))
	}
	rows, err := as.db.query(ctx, `SELECT `+as.db.timeText("sent_at")+` FROM alerts WHERE conversation_id = ? AND sent_at > ?
		ORDER BY sent_at DESC LIMIT ?`, conversationID, since.UTC(), limit)
	times, err := collect(rows, err, "alert times", func(row scanner) (time.Time, error) {
		var at rawTime
		if err := row.Scan(&at); err != nil {
			return time.Time{}, err
		}
		return at.Time()
	})
	return n, times, err
}

// React stores a tester's reaction to an alert, replacing theirs.
func (as *AlertStore) React(ctx context.Context, r *alerts.AlertReaction) error {
	ctx, cancel := as.db.limit(ctx)
	defer cancel()
	return as.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `INSERT INTO alert_reactions (alert_id, tester_id, type, reaction, reacted_at)
			SELECT id, ?, type, ?, ? FROM alerts WHERE id = ?
			ON CONFLICT (alert_id, tester_id) DO UPDATE SET reaction = excluded.reaction, reacted_at = excluded.reacted_at`,
			r.TesterID, r.Reaction, r.ReactedAt.UTC(), r.AlertID)
		if err != nil {
			return fmt.Errorf("save reaction: %w", err)
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			return notFound("alert", r.AlertID)
		}
		return nil
	})
}

// TypeReactions returns the latest reactions to the type's alerts after a
// time, newest first.
func (as *AlertStore) TypeReactions(ctx context.Context, typ string, since time.Time, limit int) ([]string, error) {
	ctx, cancel := as.db.limit(ctx)
	defer cancel()
	rows, err := as.db.query(ctx, `SELECT reaction FROM alert_reactions WHERE type = ? AND reacted_at > ?
		ORDER BY reacted_at DESC, alert_id DESC, tester_id DESC LIMIT ?`, typ, since.UTC(), limit)
	return collect(rows, err, "alert reactions", func(row scanner) (string, error) {
		var s string
		return s, row.Scan(&s)
	})
}

// typeQuery reads alert types with their counts; where picks them.
const typeQuery = `WITH names AS (SELECT DISTINCT type FROM alerts UNION SELECT type FROM alert_types),
	sent AS (SELECT type, COUNT(*) AS n FROM alerts GROUP BY type),
	reacted AS (SELECT type,
		SUM(CASE WHEN reaction = 'up' THEN 1 ELSE 0 END) AS up,
		SUM(CASE WHEN reaction = 'ack' THEN 1 ELSE 0 END) AS ack,
		SUM(CASE WHEN reaction = 'down' THEN 1 ELSE 0 END) AS down
		FROM alert_reactions GROUP BY type)
	SELECT n.type, COALESCE(s.n, 0), COALESCE(r.up, 0), COALESCE(r.ack, 0), COALESCE(r.down, 0),
		COALESCE(t.paused, FALSE), COALESCE(t.reason, ''), %s, %s
	FROM names n LEFT JOIN sent s ON s.type = n.type LEFT JOIN reacted r ON r.type = n.type
	LEFT JOIN alert_types t ON t.type = n.type`

func (as *AlertStore) alertTypes(ctx context.Context, where string, args ...any) ([]*alerts.AlertType, error) {
	ctx, cancel := as.db.limit(ctx)
	defer cancel()
	q := fmt.Sprintf(typeQuery, as.db.timeText("t.paused_at"), as.db.timeText("t.enabled_at"))
	rows, err := as.db.query(ctx, q+where+` ORDER BY n.type`, args...)
	return collect(rows, err, "alert types", func(row scanner) (*alerts.AlertType, error) {
		var t alerts.AlertType
		var paused, enabled rawTime
		if err := row.Scan(&t.Type, &t.Sent, &t.Up, &t.Ack, &t.Down, &t.Paused, &t.Reason, &paused, &enabled); err != nil {
			return nil, err
		}
		for _, p := range []struct {
			raw  *rawTime
			into **time.Time
		}{{&paused, &t.PausedAt}, {&enabled, &t.EnabledAt}} {
			if !p.raw.valid {
				continue
			}
			at, err := p.raw.Time()
			if err != nil {
				return nil, err
			}
			*p.into = &at
		}
		if !t.Paused {
			t.PausedAt, t.Reason = nil, ""
		}
		return &t, nil
	})
}

// AlertType returns a type's state and counts.
func (as *AlertStore) AlertType(ctx context.Context, typ string) (*alerts.AlertType, error) {
	list, err := as.alertTypes(ctx, ` WHERE n.type = ?`, typ)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return &alerts.AlertType{Type: typ}, nil
	}
	return list[0], nil
}

// AlertTypes lists every type that was sent or paused.
func (as *AlertStore) AlertTypes(ctx context.Context) ([]*alerts.AlertType, error) {
	return as.alertTypes(ctx, "")
}

// PauseType pauses a type, unless it is paused.
func (as *AlertStore) PauseType(ctx context.Context, typ, reason string, at time.Time) error {
	ctx, cancel := as.db.limit(ctx)
	defer cancel()
	return as.db.update(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `INSERT INTO alert_types (type, paused, reason, paused_at) VALUES (?, TRUE, ?, ?)
			ON CONFLICT (type) DO UPDATE SET paused = TRUE, reason = excluded.reason, paused_at = excluded.paused_at
			WHERE alert_types.paused = FALSE`, typ, reason, at.UTC())
		if err != nil {
			return fmt.Errorf("pause alert type: %w", err)
		}
		return nil
	})
}

// EnableType ends a type's pause.
func (as *AlertStore) EnableType(ctx context.Context, typ string, at time.Time) error {
	ctx, cancel := as.db.limit(ctx)
	defer cancel()
	return as.db.update(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `INSERT INTO alert_types (type, paused, enabled_at) VALUES (?, FALSE, ?)
			ON CONFLICT (type) DO UPDATE SET paused = FALSE, reason = '', paused_at = NULL, enabled_at = excluded.enabled_at`,
			typ, at.UTC())
		if err != nil {
			return fmt.Errorf("enable alert type: %w", err)
		}
		return nil
	})
}
