package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
)

// CaptureStore keeps conversations, sessions and turns: the capture.Store.
type CaptureStore struct{ db *DB }

// Capture returns the store of conversations, sessions and turns.
func (db *DB) Capture() *CaptureStore { return &CaptureStore{db} }

var _ capture.Store = (*CaptureStore)(nil)

// sessionIDLength is the length of a session id: short enough to type, with
// 32^8 possible values.
const sessionIDLength = 8

const sessionColumns = `s.id, s.conversation_id, s.session_start, s.session_end, s.master_prompt_version,
	s.branch_name, s.total_turns, s.total_improvements, s.tester_id, s.tester_email, s.metadata`

type scanner interface{ Scan(dest ...any) error }

func scanSession(row scanner) (*capture.Session, error) {
	var s capture.Session
	var end sql.NullTime
	var meta []byte
	if err := row.Scan(&s.ID, &s.ConversationID, &s.Start, &end, &s.PromptVersion, &s.Branch,
		&s.TotalTurns, &s.TotalImprovements, &s.TesterID, &s.TesterEmail, &meta); err != nil {
		return nil, err
	}
	s.Start = s.Start.UTC()
	if end.Valid {
		t := end.Time.UTC()
		s.End = &t
	}
	s.Metadata = jsonOrEmpty(meta)
	return &s, nil
}

// jsonOrEmpty returns b as JSON, or an empty object when b is empty.
func jsonOrEmpty(b []byte) []byte {
	if len(b) == 0 {
		return []byte("{}")
	}
	return append([]byte(nil), b...)
}

// FindSession returns the session with id.
func (cs *CaptureStore) FindSession(ctx context.Context, id string) (*capture.Session, error) {
	ctx, cancel := cs.db.limit(ctx)
	defer cancel()
	s, err := scanSession(cs.db.queryRow(ctx, `SELECT `+sessionColumns+` FROM sessions s WHERE s.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("session", id)
	} else if err != nil {
		return nil, dbError(fmt.Errorf("find session %q: %w", id, err))
	}
	if err := cs.withNames(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

// CurrentSession returns the conversation's open session.
func (cs *CaptureStore) CurrentSession(ctx context.Context, conversationID string) (*capture.Session, error) {
	ctx, cancel := cs.db.limit(ctx)
	defer cancel()
	s, err := scanSession(cs.db.queryRow(ctx, `SELECT `+sessionColumns+`
		FROM conversations c JOIN sessions s ON s.id = c.current_session_id WHERE c.id = ?`, conversationID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, hone.Errorf(hone.ENOTFOUND, "conversation %q has no session", conversationID)
	} else if err != nil {
		return nil, dbError(fmt.Errorf("current session of %q: %w", conversationID, err))
	}
	return s, nil
}

// ListSessions returns sessions newest first.
func (cs *CaptureStore) ListSessions(ctx context.Context, f capture.SessionFilter) ([]*capture.Session, error) {
	ctx, cancel := cs.db.limit(ctx)
	defer cancel()
	db := cs.db
	var where []string
	var args []any
	if f.TesterID != "" {
		where, args = append(where, "s.tester_id = ?"), append(args, f.TesterID)
	}
	if f.PromptVersion != "" {
		where, args = append(where, "s.master_prompt_version = ?"), append(args, f.PromptVersion)
	}
	query := `SELECT ` + sessionColumns + ` FROM sessions s`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	if f.Limit <= 0 {
		f.Limit = capture.DefaultSessionLimit
	}
	query += ` ORDER BY s.session_start DESC, s.id LIMIT ? OFFSET ?`
	args = append(args, f.Limit, max(f.Offset, 0))
	rows, err := db.query(ctx, query, args...)
	if err != nil {
		return nil, dbError(fmt.Errorf("list sessions: %w", err))
	}
	defer rows.Close()
	out := []*capture.Session{}
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, dbError(fmt.Errorf("list sessions: %w", err))
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, dbError(fmt.Errorf("list sessions: %w", err))
	}
	rows.Close()
	if err := cs.withNames(ctx, out...); err != nil {
		return nil, err
	}
	return out, nil
}

// lockConversation makes sure the conversation has a row and locks it for the
// rest of the transaction, so that concurrent turns of one conversation agree
// on its session. It returns the current session, nil when there is none.
func lockConversation(ctx context.Context, tx *Tx, conversationID string) (*capture.Session, error) {
	if _, err := tx.exec(ctx, `INSERT INTO conversations (id, updated_at) VALUES (?, ?)
		ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at`, conversationID, tx.now); err != nil {
		return nil, fmt.Errorf("lock conversation: %w", err)
	}
	s, err := scanSession(tx.queryRow(ctx, `SELECT `+sessionColumns+`
		FROM conversations c JOIN sessions s ON s.id = c.current_session_id WHERE c.id = ?`, conversationID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("current session: %w", err)
	}
	return s, nil
}

// startSession creates a session and makes it the conversation's current one.
func startSession(ctx context.Context, tx *Tx, t capture.Tester, promptVersion, branch string) (*capture.Session, error) {
	s := &capture.Session{
		ConversationID: t.ConversationID, Start: tx.now, PromptVersion: promptVersion, Branch: branch,
		TesterID: t.TesterID, TesterEmail: t.TesterEmail, Metadata: []byte("{}"),
	}
	for attempt := 0; ; attempt++ {
		s.ID = hone.NewID(sessionIDLength)
		res, err := tx.exec(ctx, `INSERT INTO sessions (id, conversation_id, session_start, master_prompt_version,
			branch_name, tester_id, tester_email) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			s.ID, s.ConversationID, s.Start, s.PromptVersion, s.Branch, s.TesterID, s.TesterEmail)
		if err != nil {
			return nil, fmt.Errorf("start session: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			break
		}
		if attempt == 5 {
			return nil, errors.New("start session: could not find a free session id")
		}
	}
	if _, err := tx.exec(ctx, `UPDATE conversations SET current_session_id = ? WHERE id = ?`, s.ID, t.ConversationID); err != nil {
		return nil, fmt.Errorf("start session: %w", err)
	}
	return s, nil
}

func endSession(ctx context.Context, tx *Tx, s *capture.Session) error {
	if _, err := tx.exec(ctx, `UPDATE sessions SET session_end = ? WHERE id = ? AND session_end IS NULL`, tx.now, s.ID); err != nil {
		return fmt.Errorf("end session %s: %w", s.ID, err)
	}
	end := tx.now
	s.End = &end
	return nil
}

// ResetSession ends the conversation's current session and starts a new one
// with the same prompt version and branch.
func (cs *CaptureStore) ResetSession(ctx context.Context, t capture.Tester) (prev, next *capture.Session, err error) {
	if err := t.Validate(); err != nil {
		return nil, nil, err
	}
	ctx, cancel := cs.db.limit(ctx)
	defer cancel()
	err = cs.db.update(ctx, func(tx *Tx) error {
		if prev, err = lockConversation(ctx, tx, t.ConversationID); err != nil {
			return err
		}
		var version, branch string
		if prev != nil {
			if err := endSession(ctx, tx, prev); err != nil {
				return err
			}
			version, branch = prev.PromptVersion, prev.Branch
		}
		next, err = startSession(ctx, tx, t, version, branch)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return prev, next, nil
}

// OpenSession returns the conversation's current session when it has the
// prompt version, and otherwise ends it and starts one that has.
func (cs *CaptureStore) OpenSession(ctx context.Context, t capture.Tester, promptVersion, branch string) (*capture.Session, error) {
	t = t.Clean()
	if err := t.Validate(); err != nil {
		return nil, err
	}
	promptVersion, branch = hone.CleanText(promptVersion), hone.CleanText(branch)
	ctx, cancel := cs.db.limit(ctx)
	defer cancel()
	var s *capture.Session
	err := cs.db.update(ctx, func(tx *Tx) (err error) {
		if s, err = lockConversation(ctx, tx, t.ConversationID); err != nil {
			return err
		}
		if s != nil && s.PromptVersion == promptVersion {
			return nil
		}
		if s != nil {
			if err := endSession(ctx, tx, s); err != nil {
				return err
			}
		}
		s, err = startSession(ctx, tx, t, promptVersion, branch)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// ResumeSession makes one of the tester's sessions current again.
func (cs *CaptureStore) ResumeSession(ctx context.Context, t capture.Tester, sessionID string) (*capture.Session, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	ctx, cancel := cs.db.limit(ctx)
	defer cancel()
	var s *capture.Session
	err := cs.db.update(ctx, func(tx *Tx) error {
		current, err := lockConversation(ctx, tx, t.ConversationID)
		if err != nil {
			return err
		}
		s, err = scanSession(tx.queryRow(ctx, `SELECT `+sessionColumns+` FROM sessions s WHERE s.id = ? AND s.tester_id = ?`,
			sessionID, t.TesterID))
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("session", sessionID)
		} else if err != nil {
			return err
		}
		if current != nil && current.ID != s.ID {
			if err := endSession(ctx, tx, current); err != nil {
				return err
			}
		}
		if _, err := tx.exec(ctx, `UPDATE sessions SET session_end = NULL WHERE id = ?`, s.ID); err != nil {
			return err
		}
		s.End = nil
		_, err = tx.exec(ctx, `UPDATE conversations SET current_session_id = ? WHERE id = ?`, s.ID, t.ConversationID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}
