package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/tuning"
)

// turnIDLength is the length of a turn or improvement id.
const turnIDLength = 12

// RecordTurn appends a turn to the conversation's current session, starting a
// session first when there is none or the prompt version changed.
func (db *DB) RecordTurn(ctx context.Context, in tuning.TurnInput) (*tuning.Turn, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	var t *tuning.Turn
	err := db.update(ctx, func(tx *Tx) (err error) {
		t, err = recordTurn(ctx, tx, in)
		return err
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

func recordTurn(ctx context.Context, tx *Tx, in tuning.TurnInput) (*tuning.Turn, error) {
	tester := tuning.Tester{ConversationID: in.ConversationID, TesterID: in.TesterID, TesterEmail: in.TesterEmail}
	s, err := lockConversation(ctx, tx, in.ConversationID)
	if err != nil {
		return nil, err
	}
	if s != nil && in.PromptVersion != "" && in.PromptVersion != s.PromptVersion {
		if err := endSession(ctx, tx, s); err != nil {
			return nil, err
		}
		s = nil
	}
	if s == nil {
		if s, err = startSession(ctx, tx, tester, in.PromptVersion, in.Branch); err != nil {
			return nil, err
		}
	}
	t := &tuning.Turn{
		ID: hone.NewID(turnIDLength), SessionID: s.ID, UserMessage: in.UserMessage, Response: in.Response,
		Timestamp: tx.now, SearchResults: in.SearchResults, AvgSimilarity: in.AvgSimilarity,
		ProcessingTimeMS: in.ProcessingTimeMS, Metadata: jsonOrEmpty(in.Metadata), Improvements: []tuning.Improvement{},
	}
	if err := tx.queryRow(ctx, `UPDATE sessions SET total_turns = total_turns + 1 WHERE id = ? RETURNING total_turns`,
		s.ID).Scan(&t.Number); err != nil {
		return nil, fmt.Errorf("number turn: %w", err)
	}
	var search, measured any
	if len(in.SearchResults) > 0 {
		search = string(in.SearchResults)
	}
	t.Scores = map[string]int{}
	if in.Measure != nil {
		m := in.Measure(t.Number == 1)
		if len(m.Metrics) > 0 {
			t.Metrics, measured = m.Metrics, string(m.Metrics)
		}
		t.ObjectiveScore = m.Objective
	}
	if _, err := tx.exec(ctx, `INSERT INTO turns (id, session_id, turn_number, user_message, response, created_at,
		search_results, avg_similarity, processing_time_ms, metadata, metrics, objective_score)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.SessionID, t.Number, t.UserMessage, t.Response, t.Timestamp, search, in.AvgSimilarity,
		in.ProcessingTimeMS, string(t.Metadata), measured, t.ObjectiveScore); err != nil {
		return nil, fmt.Errorf("insert turn: %w", err)
	}
	return t, nil
}

func (db *DB) turnColumns() string {
	return `t.id, t.session_id, t.turn_number, t.user_message, t.response, ` + db.timeText("t.created_at") + `,
	t.search_results, t.avg_similarity, t.processing_time_ms, t.metadata,
	t.metrics, t.scores, t.objective_score, t.subjective_score, t.overall_score`
}

func scanTurn(row scanner, extra ...any) (*tuning.Turn, error) {
	var t tuning.Turn
	var at rawTime
	var search, meta []byte
	var sim, ms sql.NullFloat64
	var measured, scores []byte
	var obj, subj, overall sql.NullFloat64
	dest := append([]any{&t.ID, &t.SessionID, &t.Number, &t.UserMessage, &t.Response, &at,
		&search, &sim, &ms, &meta, &measured, &scores, &obj, &subj, &overall}, extra...)
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	var err error
	if t.Timestamp, err = at.Time(); err != nil {
		return nil, err
	}
	if len(search) > 0 {
		t.SearchResults = append([]byte(nil), search...)
	}
	if sim.Valid {
		t.AvgSimilarity = &sim.Float64
	}
	if ms.Valid {
		t.ProcessingTimeMS = &ms.Float64
	}
	t.Metadata = jsonOrEmpty(meta)
	t.Improvements = []tuning.Improvement{}
	if len(measured) > 0 {
		t.Metrics = append([]byte(nil), measured...)
	}
	if t.Scores, err = decodeScores(scores); err != nil {
		return nil, err
	}
	t.ObjectiveScore, t.SubjectiveScore, t.OverallScore = nullFloat(obj), nullFloat(subj), nullFloat(overall)
	return &t, nil
}

// EachTurn streams a session's turns with their improvements, in order.
func (db *DB) EachTurn(ctx context.Context, sessionID string, fn func(*tuning.Turn) error) error {
	return db.eachTurn(ctx, sessionID, 1, math.MaxInt32, fn)
}

// ListTurns returns up to limit turns numbered from from on, with their improvements.
func (db *DB) ListTurns(ctx context.Context, sessionID string, from, limit int) ([]*tuning.Turn, error) {
	out := []*tuning.Turn{}
	err := db.eachTurn(ctx, sessionID, from, from+limit-1, func(t *tuning.Turn) error {
		out = append(out, t)
		return nil
	})
	return out, err
}

func (db *DB) eachTurn(ctx context.Context, sessionID string, from, to int, fn func(*tuning.Turn) error) error {
	rows, err := db.query(ctx, `SELECT `+db.turnColumns()+`, i.id, i.improvement_note, i.category, `+db.timeText("i.created_at")+`
		FROM turns t LEFT JOIN improvements i ON i.turn_id = t.id
		WHERE t.session_id = ? AND t.turn_number BETWEEN ? AND ?
		ORDER BY t.turn_number, i.created_at, i.id`, sessionID, from, to)
	if err != nil {
		return fmt.Errorf("read turns of %s: %w", sessionID, err)
	}
	defer rows.Close()
	var cur *tuning.Turn
	for rows.Next() {
		var impID, note, category sql.NullString
		var at rawTime
		t, err := scanTurn(rows, &impID, &note, &category, &at)
		if err != nil {
			return fmt.Errorf("read turns of %s: %w", sessionID, err)
		}
		if cur != nil && cur.ID != t.ID {
			if err := fn(cur); err != nil {
				return err
			}
			cur = nil
		}
		if cur == nil {
			cur = t
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
		return fmt.Errorf("read turns of %s: %w", sessionID, err)
	}
	if cur != nil {
		return fn(cur)
	}
	return nil
}

// RecentTurns returns up to limit of the latest turns of a session, oldest first.
func (db *DB) RecentTurns(ctx context.Context, sessionID string, limit int) ([]*tuning.Turn, error) {
	rows, err := db.query(ctx, `SELECT `+db.turnColumns()+` FROM turns t WHERE t.session_id = ?
		ORDER BY t.turn_number DESC LIMIT ?`, sessionID, limit)
	if err != nil {
		return nil, fmt.Errorf("recent turns of %s: %w", sessionID, err)
	}
	defer rows.Close()
	var out []*tuning.Turn
	for rows.Next() {
		t, err := scanTurn(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, rows.Err()
}

// AddImprovement attaches a note to the latest turn of the conversation's session.
func (db *DB) AddImprovement(ctx context.Context, conversationID, category, note string) (*tuning.Improvement, error) {
	imp := &tuning.Improvement{ID: hone.NewID(turnIDLength), Note: note, Category: category}
	err := db.update(ctx, func(tx *Tx) error {
		imp.Timestamp = tx.now
		err := tx.queryRow(ctx, `SELECT t.id, t.session_id FROM conversations c
			JOIN turns t ON t.session_id = c.current_session_id
			WHERE c.id = ? ORDER BY t.turn_number DESC LIMIT 1`, conversationID).Scan(&imp.TurnID, &imp.SessionID)
		if errors.Is(err, sql.ErrNoRows) {
			return tuning.ErrNoTurn
		} else if err != nil {
			return fmt.Errorf("find latest turn: %w", err)
		}
		var cat any
		if category != "" {
			cat = category
		}
		if _, err := tx.exec(ctx, `INSERT INTO improvements (id, turn_id, session_id, improvement_note, category, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, imp.ID, imp.TurnID, imp.SessionID, note, cat, imp.Timestamp); err != nil {
			return fmt.Errorf("insert improvement: %w", err)
		}
		if _, err := tx.exec(ctx, `UPDATE sessions SET total_improvements = total_improvements + 1 WHERE id = ?`,
			imp.SessionID); err != nil {
			return fmt.Errorf("count improvement: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return imp, nil
}
