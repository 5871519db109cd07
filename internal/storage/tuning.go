package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/tuning"
)

// TuningStore keeps improvement notes: the tuning.Store.
type TuningStore struct{ db *DB }

// Tuning returns the store of improvement notes.
func (db *DB) Tuning() *TuningStore { return &TuningStore{db} }

var _ tuning.Store = (*TuningStore)(nil)

// AddImprovement attaches a note to the latest turn of the conversation's session.
func (ts *TuningStore) AddImprovement(ctx context.Context, conversationID, category, note string) (*tuning.Improvement, error) {
	ctx, cancel := ts.db.limit(ctx)
	defer cancel()
	imp := &tuning.Improvement{ID: hone.NewID(turnIDLength), Note: hone.CleanText(note), Category: category}
	err := ts.db.update(ctx, func(tx *Tx) error {
		imp.Timestamp = tx.now
		err := tx.queryRow(ctx, `SELECT t.id, t.session_id FROM conversations c
			JOIN turns t ON t.session_id = c.current_session_id
			WHERE c.id = ? ORDER BY t.turn_number DESC LIMIT 1`, conversationID).Scan(&imp.TurnID, &imp.SessionID)
		if errors.Is(err, sql.ErrNoRows) {
			return capture.ErrNoTurn
		} else if err != nil {
			return fmt.Errorf("find latest turn: %w", err)
		}
		return insertImprovement(ctx, tx, imp)
	})
	if err != nil {
		return nil, err
	}
	return imp, nil
}

// AddTurnImprovement attaches a note to a turn by id.
func (ts *TuningStore) AddTurnImprovement(ctx context.Context, turnID, category, note string) (*tuning.Improvement, error) {
	ctx, cancel := ts.db.limit(ctx)
	defer cancel()
	imp := &tuning.Improvement{ID: hone.NewID(turnIDLength), TurnID: turnID, Note: hone.CleanText(note), Category: category}
	err := ts.db.update(ctx, func(tx *Tx) error {
		imp.Timestamp = tx.now
		err := tx.queryRow(ctx, `SELECT session_id FROM turns WHERE id = ?`, turnID).Scan(&imp.SessionID)
		if errors.Is(err, sql.ErrNoRows) {
			return &hone.Error{Code: hone.ENOTFOUND, Field: "turn_id", Message: "turn " + turnID + " not found"}
		} else if err != nil {
			return fmt.Errorf("find turn: %w", err)
		}
		return insertImprovement(ctx, tx, imp)
	})
	if err != nil {
		return nil, err
	}
	return imp, nil
}

// insertImprovement stores imp and counts it in its session's total.
func insertImprovement(ctx context.Context, tx *Tx, imp *tuning.Improvement) error {
	var cat any
	if imp.Category != "" {
		cat = imp.Category
	}
	if _, err := tx.exec(ctx, `INSERT INTO improvements (id, turn_id, session_id, improvement_note, category, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, imp.ID, imp.TurnID, imp.SessionID, imp.Note, cat, imp.Timestamp); err != nil {
		return fmt.Errorf("insert improvement: %w", err)
	}
	if _, err := tx.exec(ctx, `UPDATE sessions SET total_improvements = total_improvements + 1 WHERE id = ?`,
		imp.SessionID); err != nil {
		return fmt.Errorf("count improvement: %w", err)
	}
	return nil
}

// EachTurn streams a session's turns with their improvements, in order.
func (ts *TuningStore) EachTurn(ctx context.Context, sessionID string, fn func(*tuning.Turn) error) error {
	ctx, cancel := context.WithTimeout(ctx, ts.db.StreamTimeout)
	defer cancel()
	return ts.eachTurn(ctx, sessionID, 1, math.MaxInt32, fn)
}

// ListTurns returns up to limit turns numbered from from on, with their improvements.
func (ts *TuningStore) ListTurns(ctx context.Context, sessionID string, from, limit int) ([]*tuning.Turn, error) {
	ctx, cancel := ts.db.limit(ctx)
	defer cancel()
	out := []*tuning.Turn{}
	err := ts.eachTurn(ctx, sessionID, from, from+limit-1, func(t *tuning.Turn) error {
		out = append(out, t)
		return nil
	})
	return out, err
}

func (ts *TuningStore) eachTurn(ctx context.Context, sessionID string, from, to int, fn func(*tuning.Turn) error) error {
	rows, err := ts.db.query(ctx, `SELECT `+ts.db.turnColumns()+`, i.id, i.improvement_note, i.category, `+ts.db.timeText("i.created_at")+`
		FROM turns t LEFT JOIN improvements i ON i.turn_id = t.id
		WHERE t.session_id = ? AND t.turn_number BETWEEN ? AND ?
		ORDER BY t.turn_number, i.created_at, i.id`, sessionID, from, to)
	if err != nil {
		return dbError(fmt.Errorf("read turns of %s: %w", sessionID, err))
	}
	defer rows.Close()
	var cur *tuning.Turn
	for rows.Next() {
		var impID, note, category sql.NullString
		var at rawTime
		t, err := scanTurn(rows, &impID, &note, &category, &at)
		if err != nil {
			return dbError(fmt.Errorf("read turns of %s: %w", sessionID, err))
		}
		if cur != nil && cur.ID != t.ID {
			if err := fn(cur); err != nil {
				return err
			}
			cur = nil
		}
		if cur == nil {
			cur = &tuning.Turn{Turn: *t, Improvements: []tuning.Improvement{}}
		}
		if impID.Valid {
			ts, err := at.Time()
			if err != nil {
				return fmt.Errorf("read turns of %s: %w", sessionID, err)
			}
			cur.Improvements = append(cur.Improvements, tuning.Improvement{
				ID: impID.String, TurnID: cur.ID, SessionID: sessionID, Note: note.String,
				Category: category.String, Timestamp: ts,
			})
		}
	}
	if err := rows.Err(); err != nil {
		return dbError(fmt.Errorf("read turns of %s: %w", sessionID, err))
	}
	if cur != nil {
		return fn(cur)
	}
	return nil
}
