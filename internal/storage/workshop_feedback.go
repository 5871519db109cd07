package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/workshop"
)

func (ws *WorkshopStore) feedbackColumns() string {
	return `f.id, f.workshop_id, f.trace_id, f.user_id, f.feedback_label, f.comment, f.followup_qna, f.pending_number,
	f.pending_question, f.pending_fallback, f.failed_attempts, ` + ws.db.timeText("f.created_at") + `, ` + ws.db.timeText("f.updated_at")
}

func scanFeedback(row scanner) (*workshop.Feedback, error) {
	var f workshop.Feedback
	var qna []byte
	var number sql.NullInt64
	var question sql.NullString
	var fallback bool
	var created, updated rawTime
	if err := row.Scan(&f.ID, &f.WorkshopID, &f.TraceID, &f.UserID, &f.Label, &f.Comment, &qna, &number, &question,
		&fallback, &f.FailedAttempts, &created, &updated); err != nil {
		return nil, err
	}
	f.FollowupQnA = []workshop.QA{}
	if len(qna) > 0 {
		if err := json.Unmarshal(qna, &f.FollowupQnA); err != nil {
			return nil, fmt.Errorf("read follow-up answers of %s: %w", f.ID, err)
		}
	}
	if number.Valid {
		f.Pending = &workshop.Pending{Number: int(number.Int64), Question: question.String, Fallback: fallback}
	}
	var err error
	if f.CreatedAt, err = created.Time(); err != nil {
		return nil, err
	}
	f.UpdatedAt, err = updated.Time()
	return &f, err
}

// UpsertFeedback stores a label and comment, keeping the answers.
func (ws *WorkshopStore) UpsertFeedback(ctx context.Context, f *workshop.Feedback) (*workshop.Feedback, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	var out *workshop.Feedback
	err := ws.db.update(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `INSERT INTO discovery_feedback (id, workshop_id, trace_id, user_id, feedback_label, comment,
			followup_qna, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, '[]', ?, ?)
			ON CONFLICT (workshop_id, trace_id, user_id) DO UPDATE SET feedback_label = excluded.feedback_label,
			comment = excluded.comment, updated_at = excluded.updated_at`,
			f.ID, f.WorkshopID, f.TraceID, f.UserID, f.Label, f.Comment, tx.now, tx.now); err != nil {
			return fmt.Errorf("save feedback: %w", err)
		}
		var err error
		out, err = scanFeedback(tx.queryRow(ctx, `SELECT `+ws.feedbackColumns()+` FROM discovery_feedback f
			WHERE f.workshop_id = ? AND f.trace_id = ? AND f.user_id = ?`, f.WorkshopID, f.TraceID, f.UserID))
		return err
	})
	return out, err
}

// SetLabel makes a label the member's feedback of a trace, when userID is
// a member of the workshop.
func (ws *WorkshopStore) SetLabel(ctx context.Context, workshopID, traceID, userID, label, comment string, at time.Time) (bool, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	var member bool
	err := ws.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `INSERT INTO discovery_feedback (id, workshop_id, trace_id, user_id, feedback_label, comment,
			followup_qna, created_at, updated_at)
			SELECT ?, ?, ?, ?, ?, ?, '[]', ?, ? WHERE EXISTS (SELECT 1 FROM workshop_members WHERE id = ? AND workshop_id = ?)
			ON CONFLICT (workshop_id, trace_id, user_id) DO UPDATE SET feedback_label = excluded.feedback_label,
			comment = CASE WHEN excluded.comment = '' THEN discovery_feedback.comment ELSE excluded.comment END,
			updated_at = excluded.updated_at`,
			hone.NewID(12), workshopID, traceID, userID, label, comment, at.UTC(), at.UTC(), userID, workshopID)
		if err != nil {
			return fmt.Errorf("set label: %w", err)
		}
		n, err := res.RowsAffected()
		member = n > 0
		return err
	})
	return member, err
}

// Feedback returns one record.
func (ws *WorkshopStore) Feedback(ctx context.Context, workshopID, traceID, userID string) (*workshop.Feedback, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	f, err := scanFeedback(ws.db.queryRow(ctx, `SELECT `+ws.feedbackColumns()+` FROM discovery_feedback f
		WHERE f.workshop_id = ? AND f.trace_id = ? AND f.user_id = ?`, workshopID, traceID, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, hone.Errorf(hone.ENOTFOUND, "no feedback of %s on trace %s", userID, traceID)
	} else if err != nil {
		return nil, dbError(err)
	}
	return f, nil
}

// ListFeedback returns the selected records by trace position and member.
func (ws *WorkshopStore) ListFeedback(ctx context.Context, ff workshop.FeedbackFilter) ([]*workshop.Feedback, error) {
	ctx, cancel := context.WithTimeout(ctx, ws.db.StreamTimeout)
	defer cancel()
	q := `SELECT ` + ws.feedbackColumns() + ` FROM discovery_feedback f
		JOIN workshop_traces t ON t.workshop_id = f.workshop_id AND t.id = f.trace_id WHERE f.workshop_id = ?`
	args := []any{ff.WorkshopID}
	if ff.UserID != "" {
		q, args = q+` AND f.user_id = ?`, append(args, ff.UserID)
	}
	if ff.TraceID != "" {
		q, args = q+` AND f.trace_id = ?`, append(args, ff.TraceID)
	}
	rows, err := ws.db.query(ctx, q+` ORDER BY t.position, f.created_at, f.user_id`, args...)
	return collect(rows, err, "feedback", scanFeedback)
}

// CountFeedback counts a workshop's feedback records.
func (ws *WorkshopStore) CountFeedback(ctx context.Context, workshopID string) (int, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	var n int
	err := ws.db.queryRow(ctx, `SELECT COUNT(*) FROM discovery_feedback WHERE workshop_id = ?`, workshopID).Scan(&n)
	return n, dbError(err)
}

// SetPending keeps a pending question.
func (ws *WorkshopStore) SetPending(ctx context.Context, feedbackID string, answers int, p workshop.Pending) (*workshop.Feedback, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	var out *workshop.Feedback
	err := ws.db.update(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `UPDATE discovery_feedback SET pending_number = ?, pending_question = ?, pending_fallback = ?,
			failed_attempts = 0, updated_at = ? WHERE id = ? AND answers = ? AND pending_number IS NULL`,
			p.Number, p.Question, p.Fallback, tx.now, feedbackID, answers); err != nil {
			return fmt.Errorf("keep the question asked: %w", err)
		}
		var err error
		out, err = scanFeedback(tx.queryRow(ctx, `SELECT `+ws.feedbackColumns()+` FROM discovery_feedback f WHERE f.id = ?`, feedbackID))
		return err
	})
	return out, err
}

// FailAttempt counts a failed attempt at the next question.
func (ws *WorkshopStore) FailAttempt(ctx context.Context, feedbackID string, answers int) (int, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	var n int
	err := ws.db.update(ctx, func(tx *Tx) error {
		err := tx.queryRow(ctx, `UPDATE discovery_feedback SET failed_attempts = failed_attempts + 1
			WHERE id = ? AND answers = ? AND pending_number IS NULL RETURNING failed_attempts`, feedbackID, answers).Scan(&n)
		if errors.Is(err, sql.ErrNoRows) {
			return hone.Errorf(hone.ECONFLICT, "the question was asked or answered meanwhile: reload")
		}
		return err
	})
	return n, err
}

// AppendAnswer appends an answer to the question asked.
func (ws *WorkshopStore) AppendAnswer(ctx context.Context, feedbackID string, answers int, qa workshop.QA) (*workshop.Feedback, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	var out *workshop.Feedback
	err := ws.db.update(ctx, func(tx *Tx) error {
		f, err := scanFeedback(tx.queryRow(ctx, `SELECT `+ws.feedbackColumns()+` FROM discovery_feedback f WHERE f.id = ? AND f.answers = ?`,
			feedbackID, answers))
		if errors.Is(err, sql.ErrNoRows) {
			return hone.Errorf(hone.ECONFLICT, "the question was answered meanwhile: reload")
		} else if err != nil {
			return err
		}
		f.FollowupQnA = append(f.FollowupQnA, qa)
		b, err := json.Marshal(f.FollowupQnA)
		if err != nil {
			return err
		}
		res, err := tx.exec(ctx, `UPDATE discovery_feedback SET followup_qna = ?, answers = ?, pending_number = NULL,
			pending_question = NULL, pending_fallback = ?, failed_attempts = 0, updated_at = ? WHERE id = ? AND answers = ?`,
			string(b), len(f.FollowupQnA), false, tx.now, feedbackID, answers)
		if err != nil {
			return fmt.Errorf("save answer: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return hone.Errorf(hone.ECONFLICT, "the question was answered meanwhile: reload")
		}
		if len(f.FollowupQnA) == workshop.Questions {
			if _, err := tx.exec(ctx, `UPDATE workshop_members SET completed = completed + 1 WHERE id = ?`, f.UserID); err != nil {
				return fmt.Errorf("count completed trace: %w", err)
			}
		}
		f.Pending, f.FailedAttempts, f.UpdatedAt = nil, 0, tx.now
		out = f
		return nil
	})
	return out, err
}

// Ratings returns every label of a workshop.
func (ws *WorkshopStore) Ratings(ctx context.Context, workshopID string) ([]workshop.Rating, error) {
	ctx, cancel := context.WithTimeout(ctx, ws.db.StreamTimeout)
	defer cancel()
	// One row per trace, its reviewers' "user label" pairs joined with a
	// record separator: a workshop has many more labels than traces, and a
	// row costs more to fetch than the text it holds. Member ids are hone's
	// own and labels "good" or "bad", so neither holds a separator.
	agg := "group_concat(user_id || char(31) || feedback_label, char(30))"
	if ws.db.dialect != SQLite {
		agg = "string_agg(user_id || chr(31) || feedback_label, chr(30))"
	}
	rows, err := ws.db.query(ctx, `SELECT trace_id, `+agg+` FROM discovery_feedback
		WHERE workshop_id = ? GROUP BY trace_id ORDER BY trace_id`, workshopID)
	if err != nil {
		return nil, dbError(fmt.Errorf("read ratings: %w", err))
	}
	defer rows.Close()
	out := []workshop.Rating{}
	labels := map[string]string{}
	for rows.Next() {
		var trace, pairs string
		if err := rows.Scan(&trace, &pairs); err != nil {
			return nil, dbError(err)
		}
		for pair := range strings.SplitSeq(pairs, "\x1e") {
			user, label, ok := strings.Cut(pair, "\x1f")
			if !ok {
				return nil, fmt.Errorf("read ratings of trace %q: %q is no member and label", trace, pair)
			}
			if l, ok := labels[label]; ok {
				label = l
			} else {
				labels[label] = label
			}
			out = append(out, workshop.Rating{TraceID: trace, UserID: user, Label: label})
		}
	}
	return out, dbError(rows.Err())
}
