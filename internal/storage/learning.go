package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/learning"
)

// LearningStore keeps the learning loop's ratings, corrections, learnings
// and synthesis runs: the learning.Store.
type LearningStore struct{ db *DB }

// Learning returns the store of the learning loop.
func (db *DB) Learning() *LearningStore { return &LearningStore{db} }

var _ learning.Store = (*LearningStore)(nil)

// turnColumns read a turn with its session's conversation.
const turnColumns = `t.id, t.session_id, s.conversation_id, t.user_message, t.response, `

func (ls *LearningStore) scanTurn(row scanner) (*learning.TurnRef, error) {
	var t learning.TurnRef
	var at rawTime
	if err := row.Scan(&t.ID, &t.SessionID, &t.ConversationID, &t.UserMessage, &t.Response, &at); err != nil {
		return nil, err
	}
	var err error
	t.CreatedAt, err = at.Time()
	return &t, err
}

// LatestTurn returns the latest turn of the conversation's current session.
func (ls *LearningStore) LatestTurn(ctx context.Context, conversationID string) (*learning.TurnRef, error) {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	t, err := ls.scanTurn(ls.db.queryRow(ctx, `SELECT `+turnColumns+ls.db.timeText("t.created_at")+` FROM conversations c
		JOIN turns t ON t.session_id = c.current_session_id JOIN sessions s ON s.id = t.session_id
		WHERE c.id = ? ORDER BY t.turn_number DESC LIMIT 1`, conversationID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, capture.ErrNoTurn
	} else if err != nil {
		return nil, dbError(fmt.Errorf("find the latest turn: %w", err))
	}
	return t, nil
}

// Turn returns a turn by id.
func (ls *LearningStore) Turn(ctx context.Context, id string) (*learning.TurnRef, error) {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	t, err := ls.scanTurn(ls.db.queryRow(ctx, `SELECT `+turnColumns+ls.db.timeText("t.created_at")+` FROM turns t
		JOIN sessions s ON s.id = t.session_id WHERE t.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("turn", id)
	} else if err != nil {
		return nil, dbError(fmt.Errorf("find turn %q: %w", id, err))
	}
	return t, nil
}

func (ls *LearningStore) ratingColumns() string {
	return `f.id, f.turn_id, f.session_id, f.conversation_id, f.tester_id, f.rating, f.intent, f.context_type, ` +
		ls.db.timeText("f.created_at") + `, ` + ls.db.timeText("f.updated_at")
}

func scanRating(row scanner, extra ...any) (*learning.Rating, error) {
	var r learning.Rating
	var created, updated rawTime
	dest := append([]any{&r.ID, &r.TurnID, &r.SessionID, &r.ConversationID, &r.TesterID, &r.Rating, &r.Intent,
		&r.ContextType, &created, &updated}, extra...)
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	var err error
	if r.CreatedAt, err = created.Time(); err != nil {
		return nil, err
	}
	r.UpdatedAt, err = updated.Time()
	return &r, err
}

// SaveRating stores a rating, replacing the tester's earlier rating of the
// turn, and starts or ends the tester's correction flow, in one transaction.
func (ls *LearningStore) SaveRating(ctx context.Context, r *learning.Rating, ask bool) (*learning.Rating, error) {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	var out *learning.Rating
	err := ls.db.update(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `INSERT INTO turn_feedback (id, turn_id, session_id, conversation_id, tester_id, rating,
			intent, context_type, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (turn_id, tester_id) DO UPDATE SET rating = excluded.rating,
			intent = CASE WHEN excluded.intent = '' THEN turn_feedback.intent ELSE excluded.intent END,
			context_type = CASE WHEN excluded.context_type = '' THEN turn_feedback.context_type ELSE excluded.context_type END,
			updated_at = excluded.updated_at`,
			r.ID, r.TurnID, r.SessionID, r.ConversationID, r.TesterID, r.Rating, r.Intent, r.ContextType, tx.now, tx.now); err != nil {
			return fmt.Errorf("save rating: %w", err)
		}
		var err error
		out, err = scanRating(tx.queryRow(ctx, `SELECT `+ls.ratingColumns()+` FROM turn_feedback f
			WHERE f.turn_id = ? AND f.tester_id = ?`, r.TurnID, r.TesterID))
		if err != nil {
			return fmt.Errorf("read rating: %w", err)
		}
		if ask {
			_, err = tx.exec(ctx, `INSERT INTO correction_flows (conversation_id, tester_id, feedback_id, started_at)
				VALUES (?, ?, ?, ?) ON CONFLICT (conversation_id, tester_id) DO UPDATE SET feedback_id = excluded.feedback_id,
				started_at = excluded.started_at`, out.ConversationID, out.TesterID, out.ID, tx.now)
		} else {
			_, err = tx.exec(ctx, `DELETE FROM correction_flows WHERE conversation_id = ? AND tester_id = ?`,
				out.ConversationID, out.TesterID)
		}
		if err != nil {
			return fmt.Errorf("correction flow: %w", err)
		}
		return nil
	})
	return out, err
}

// SetRating makes r the rating of its turn by its tester, keeping an
// earlier rating's id, creation time, intent and context type.
func (ls *LearningStore) SetRating(ctx context.Context, r *learning.Rating) error {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	return ls.db.update(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `INSERT INTO turn_feedback (id, turn_id, session_id, conversation_id, tester_id, rating, intent,
			context_type, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, '', '', ?, ?)
			ON CONFLICT (turn_id, tester_id) DO UPDATE SET rating = excluded.rating, updated_at = excluded.updated_at`,
			r.ID, r.TurnID, r.SessionID, r.ConversationID, r.TesterID, r.Rating, r.CreatedAt.UTC(), r.UpdatedAt.UTC())
		if err != nil {
			return fmt.Errorf("set rating: %w", err)
		}
		return nil
	})
}

// DropRating removes a tester's rating of a turn that has no correction.
func (ls *LearningStore) DropRating(ctx context.Context, turnID, testerID string) error {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	return ls.db.update(ctx, func(tx *Tx) error {
		var corrections int
		if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM corrections c JOIN turn_feedback f ON f.id = c.feedback_id
			WHERE f.turn_id = ? AND f.tester_id = ?`, turnID, testerID).Scan(&corrections); err != nil {
			return fmt.Errorf("count corrections: %w", err)
		}
		if corrections > 0 {
			return hone.Errorf(hone.ECONFLICT, "this is the last 👍/👎 of %s on turn %s, and a correction was given for it: "+
				"rate the turn again to change the rating", testerID, turnID)
		}
		if _, err := tx.exec(ctx, `DELETE FROM turn_feedback WHERE turn_id = ? AND tester_id = ?`, turnID, testerID); err != nil {
			return fmt.Errorf("drop rating: %w", err)
		}
		return nil
	})
}

// Ratings lists ratings newest first, with their turns' texts.
func (ls *LearningStore) Ratings(ctx context.Context, f learning.RatingFilter) ([]*learning.Rating, error) {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	q := `SELECT ` + ls.ratingColumns() + `, t.turn_number, t.user_message, t.response FROM turn_feedback f
		JOIN turns t ON t.id = f.turn_id WHERE 1 = 1`
	var args []any
	if f.Rating != "" {
		q, args = q+` AND f.rating = ?`, append(args, f.Rating)
	}
	if f.TesterID != "" {
		q, args = q+` AND f.tester_id = ?`, append(args, f.TesterID)
	}
	if !f.Since.IsZero() {
		q, args = q+` AND f.updated_at >= ?`, append(args, f.Since.UTC())
	}
	rows, err := ls.db.query(ctx, q+` ORDER BY f.updated_at DESC, f.id DESC LIMIT ?`, append(args, f.Limit)...)
	return collect(rows, err, "ratings", func(row scanner) (*learning.Rating, error) {
		var msg, resp string
		var n int
		r, err := scanRating(row, &n, &msg, &resp)
		if err != nil {
			return nil, err
		}
		r.TurnNumber, r.UserMessage, r.Response = n, msg, resp
		return r, nil
	})
}

// RatingStats counts the ratings since a time, by intent and context type,
// and the pending corrections.
func (ls *LearningStore) RatingStats(ctx context.Context, since time.Time) (*learning.Stats, error) {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	st := &learning.Stats{Since: since.UTC(), ByIntent: []learning.Approval{}, ByContextType: []learning.Approval{}}
	group := func(column string) ([]learning.Approval, error) {
		q := `SELECT ''`
		if column != "" {
			q = `SELECT ` + column
		}
		q += `, COUNT(*), COALESCE(SUM(CASE WHEN rating = 'up' THEN 1 ELSE 0 END), 0) FROM turn_feedback WHERE updated_at >= ?`
		if column != "" {
			q += ` GROUP BY ` + column + ` ORDER BY COUNT(*) DESC, ` + column
		}
		rows, err := ls.db.query(ctx, q, since.UTC())
		return collect(rows, err, "rating stats", func(row scanner) (learning.Approval, error) {
			var a learning.Approval
			if err := row.Scan(&a.Name, &a.Total, &a.Up); err != nil {
				return a, err
			}
			a.Down = a.Total - a.Up
			return a, nil
		})
	}
	all, err := group("")
	if err != nil {
		return nil, err
	}
	if len(all) > 0 {
		st.Total, st.Up, st.Down = all[0].Total, all[0].Up, all[0].Down
	}
	for _, g := range []struct {
		column string
		into   *[]learning.Approval
	}{{"intent", &st.ByIntent}, {"context_type", &st.ByContextType}} {
		list, err := group(g.column)
		if err != nil {
			return nil, err
		}
		for _, a := range list {
			if a.Name != "" {
				*g.into = append(*g.into, a)
			}
		}
	}
	if err := ls.db.queryRow(ctx, `SELECT COUNT(*) FROM corrections WHERE processed = FALSE`).Scan(&st.PendingCorrections); err != nil {
		return nil, dbError(fmt.Errorf("count pending corrections: %w", err))
	}
	return st, nil
}

// Flow returns the correction a conversation's tester is asked for.
func (ls *LearningStore) Flow(ctx context.Context, conversationID, testerID string) (*learning.Flow, error) {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	f := &learning.Flow{ConversationID: conversationID, TesterID: testerID}
	var at rawTime
	err := ls.db.queryRow(ctx, `SELECT feedback_id, `+ls.db.timeText("started_at")+` FROM correction_flows
		WHERE conversation_id = ? AND tester_id = ?`, conversationID, testerID).Scan(&f.FeedbackID, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, hone.Errorf(hone.ENOTFOUND, "no correction is awaited")
	} else if err != nil {
		return nil, dbError(fmt.Errorf("find correction flow: %w", err))
	}
	f.StartedAt, err = at.Time()
	return f, err
}

// EndFlow ends the flow of a rating, if it is still the conversation's.
func (ls *LearningStore) EndFlow(ctx context.Context, conversationID, testerID, feedbackID string) error {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	return ls.db.update(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `DELETE FROM correction_flows WHERE conversation_id = ? AND tester_id = ? AND feedback_id = ?`,
			conversationID, testerID, feedbackID)
		return err
	})
}

func (ls *LearningStore) correctionColumns() string {
	return `c.id, c.feedback_id, c.correction_text, c.processed, ` + ls.db.timeText("c.created_at") +
		`, f.turn_id, f.session_id, t.turn_number, f.conversation_id, f.tester_id, t.user_message, t.response`
}

const correctionJoins = ` FROM corrections c JOIN turn_feedback f ON f.id = c.feedback_id JOIN turns t ON t.id = f.turn_id`

func scanCorrection(row scanner) (*learning.Correction, error) {
	var c learning.Correction
	var at rawTime
	if err := row.Scan(&c.ID, &c.FeedbackID, &c.Text, &c.Processed, &at, &c.TurnID, &c.SessionID, &c.TurnNumber, &c.ConversationID,
		&c.TesterID, &c.UserMessage, &c.Response); err != nil {
		return nil, err
	}
	var err error
	c.CreatedAt, err = at.Time()
	return &c, err
}

// Rated returns the correction to be of a rating, its turn filled in.
func (ls *LearningStore) Rated(ctx context.Context, feedbackID string) (*learning.Correction, error) {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	c := &learning.Correction{FeedbackID: feedbackID}
	err := ls.db.queryRow(ctx, `SELECT f.turn_id, f.session_id, t.turn_number, f.conversation_id, f.tester_id, t.user_message,
		t.response FROM turn_feedback f JOIN turns t ON t.id = f.turn_id WHERE f.id = ?`, feedbackID).Scan(&c.TurnID, &c.SessionID,
		&c.TurnNumber, &c.ConversationID, &c.TesterID, &c.UserMessage, &c.Response)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("rating", feedbackID)
	} else if err != nil {
		return nil, dbError(fmt.Errorf("find rating %q: %w", feedbackID, err))
	}
	return c, nil
}

// AddCorrection stores a correction and ends its flow.
func (ls *LearningStore) AddCorrection(ctx context.Context, c *learning.Correction, conversationID, testerID string) error {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	return ls.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `DELETE FROM correction_flows WHERE conversation_id = ? AND tester_id = ? AND feedback_id = ?`,
			conversationID, testerID, c.FeedbackID)
		if err != nil {
			return fmt.Errorf("end correction flow: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return hone.Errorf(hone.ECONFLICT, "the correction of this rating was given already")
		}
		c.CreatedAt = tx.now
		if _, err := tx.exec(ctx, `INSERT INTO corrections (id, feedback_id, correction_text, created_at) VALUES (?, ?, ?, ?)`,
			c.ID, c.FeedbackID, c.Text, c.CreatedAt); err != nil {
			return fmt.Errorf("insert correction: %w", err)
		}
		return nil
	})
}

// Corrections lists corrections oldest first with their turns.
func (ls *LearningStore) Corrections(ctx context.Context, pending bool, limit int) ([]*learning.Correction, error) {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	q := `SELECT ` + ls.correctionColumns() + correctionJoins
	if pending {
		q += ` WHERE c.processed = FALSE`
	}
	rows, err := ls.db.query(ctx, q+` ORDER BY c.created_at, c.id LIMIT ?`, limit)
	return collect(rows, err, "corrections", scanCorrection)
}

// SessionCorrections lists the corrections of the turns of a session,
// oldest first.
func (ls *LearningStore) SessionCorrections(ctx context.Context, sessionID string) ([]*learning.Correction, error) {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	rows, err := ls.db.query(ctx, `SELECT `+ls.correctionColumns()+correctionJoins+` WHERE t.session_id = ?
		ORDER BY c.created_at, c.id`, sessionID)
	return collect(rows, err, "corrections of a session", scanCorrection)
}

// CorrectionsByID returns the corrections with the ids, oldest first.
func (ls *LearningStore) CorrectionsByID(ctx context.Context, ids []string) ([]*learning.Correction, error) {
	out := []*learning.Correction{}
	for part := range chunkIDs(ids) {
		ctx, cancel := ls.db.limit(ctx)
		rows, err := ls.db.query(ctx, `SELECT `+ls.correctionColumns()+correctionJoins+` WHERE c.id IN (`+placeholders(len(part))+`)
			ORDER BY c.created_at, c.id`, anySlice(part)...)
		list, err := collect(rows, err, "corrections", scanCorrection)
		cancel()
		if err != nil {
			return nil, err
		}
		out = append(out, list...)
	}
	return out, nil
}
