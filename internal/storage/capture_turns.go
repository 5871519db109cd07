package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
)

// turnIDLength is the length of a turn or improvement id hone makes.
const turnIDLength = 12

// RecordTurns appends turns to their conversations' current sessions, in one
// transaction, each on its own.
func (cs *CaptureStore) RecordTurns(ctx context.Context, recs []capture.TurnRecord) ([]capture.TurnResult, error) {
	ctx, cancel := cs.db.limit(ctx)
	defer cancel()
	var out []capture.TurnResult
	err := cs.db.update(ctx, func(tx *Tx) error {
		var err error
		if len(recs) == 1 && recs[0].Key == "" && recs[0].Input.ID == "" {
			t, err := recordTurn(ctx, tx, &recs[0])
			out = []capture.TurnResult{{Turn: t}}
			return err
		}
		out, err = recordMany(ctx, tx, recs)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// recordMany records recs together (see recordBulk). When another
// transaction took one of their ids or keys meanwhile, it records them one
// by one instead, each looked up again.
func recordMany(ctx context.Context, tx *Tx, recs []capture.TurnRecord) ([]capture.TurnResult, error) {
	var out []capture.TurnResult
	err := dbError(tx.savepoint(ctx, "bulk", func() error {
		var err error
		out, err = recordBulk(ctx, tx, recs)
		return err
	}))
	if hone.ErrorCode(err) != hone.ECONFLICT {
		return out, err
	}
	out = make([]capture.TurnResult, len(recs))
	for i := range recs {
		out[i] = recordAlone(ctx, tx, &recs[i])
	}
	return out, nil
}

// recordAlone records rec in a savepoint of its own, so that its failure
// leaves the rest of the transaction alone. A turn whose id or key another
// transaction took meanwhile is looked up again, as a retry of it.
func recordAlone(ctx context.Context, tx *Tx, rec *capture.TurnRecord) capture.TurnResult {
	var res capture.TurnResult
	for attempt := 0; ; attempt++ {
		err := tx.savepoint(ctx, "turn", func() error {
			var err error
			res, err = recordKeyed(ctx, tx, rec)
			return err
		})
		err = dbError(err)
		if err != nil && hone.ErrorCode(err) == hone.ECONFLICT && attempt == 0 {
			continue
		}
		if err != nil {
			return capture.TurnResult{Err: err}
		}
		return res
	}
}

// recordKeyed records rec unless its id or idempotency key is taken: by the
// same turn (a replay), or by another (an ECONFLICT error in the result).
func recordKeyed(ctx context.Context, tx *Tx, rec *capture.TurnRecord) (capture.TurnResult, error) {
	for _, k := range []struct{ column, value, field, what string }{
		{"id", rec.Input.ID, "id", "turn id"},
		{"idempotency_key", rec.Key, "Idempotency-Key", "Idempotency-Key"},
	} {
		if k.value == "" {
			continue
		}
		var fp sql.NullString
		t, err := scanTurn(tx.queryRow(ctx, `SELECT `+tx.db.turnColumns()+`, t.fingerprint FROM turns t WHERE t.`+k.column+` = ?`,
			k.value), &fp)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		} else if err != nil {
			return capture.TurnResult{}, fmt.Errorf("look up %s: %w", k.what, err)
		}
		if fp.String != rec.Fingerprint {
			return capture.TurnResult{Err: &hone.Error{Code: hone.ECONFLICT, Field: k.field,
				Message: fmt.Sprintf("%s %q was already used for a different turn", k.what, k.value)}}, nil
		}
		return capture.TurnResult{Turn: t, Replayed: true}, nil
	}
	t, err := recordTurn(ctx, tx, rec)
	return capture.TurnResult{Turn: t}, err
}

// recordTurn appends rec's turn to its conversation's current session,
// starting a session first when there is none or the prompt version changed.
func recordTurn(ctx context.Context, tx *Tx, rec *capture.TurnRecord) (*capture.Turn, error) {
	in := &rec.Input
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
		if s, err = startSession(ctx, tx, in.Tester(), in.PromptVersion, in.Branch); err != nil {
			return nil, err
		}
	}
	t := newTurn(tx, rec, s.ID)
	if err := tx.queryRow(ctx, `UPDATE sessions SET total_turns = total_turns + 1 WHERE id = ? RETURNING total_turns`,
		s.ID).Scan(&t.Number); err != nil {
		return nil, fmt.Errorf("number turn: %w", err)
	}
	measure(t, rec)
	if err := insertTurns(ctx, tx, []*capture.TurnRecord{rec}, []*capture.Turn{t}); err != nil {
		return nil, err
	}
	return t, nil
}

func (db *DB) turnColumns() string {
	return `t.id, t.session_id, t.turn_number, t.user_message, t.response, ` + db.timeText("t.created_at") + `,
	t.search_results, t.avg_similarity, t.processing_time_ms, t.metadata,
	t.metrics, t.scores, t.objective_score, t.subjective_score, t.overall_score,
	t.source, ` + db.richColumns() + `,
	(SELECT m.messages FROM turn_messages m WHERE m.session_id = t.session_id AND m.turn_number = t.turn_number)`
}

// richColumns reads the richer record's columns of turns t but its source
// and messages as one value: a JSON array of model, prompt_tokens,
// completion_tokens, total_tokens, latency_ms, trace_id, span_id and
// parent_id, NULL for a turn that has none of them. Every column a row
// has costs its reading even when NULL; most turns have none.
func (db *DB) richColumns() string {
	const none = `t.model IS NULL AND t.prompt_tokens IS NULL AND t.latency_ms IS NULL AND t.trace_id IS NULL`
	const columns = `t.model, t.prompt_tokens, t.completion_tokens, t.total_tokens, t.latency_ms, t.trace_id, t.span_id, t.parent_id`
	if db.dialect == SQLite {
		return `CASE WHEN ` + none + ` THEN NULL ELSE json_array(` + columns + `) END`
	}
	return `CASE WHEN ` + none + ` THEN NULL ELSE json_build_array(` + columns + `)::text END`
}

func scanTurn(row scanner, extra ...any) (*capture.Turn, error) {
	var t capture.Turn
	var at rawTime
	var search, meta []byte
	var sim, ms sql.NullFloat64
	var measured, scores []byte
	var obj, subj, overall sql.NullFloat64
	var source sql.NullString
	var rich, messages []byte
	dest := append([]any{&t.ID, &t.SessionID, &t.Number, &t.UserMessage, &t.Response, &at,
		&search, &sim, &ms, &meta, &measured, &scores, &obj, &subj, &overall, &source, &rich, &messages}, extra...)
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
	if len(measured) > 0 {
		t.Metrics = append([]byte(nil), measured...)
	}
	if t.Scores, err = decodeScores(scores); err != nil {
		return nil, err
	}
	t.ObjectiveScore, t.SubjectiveScore, t.OverallScore = nullFloat(obj), nullFloat(subj), nullFloat(overall)
	t.Source = source.String
	if len(messages) > 0 {
		t.Messages = append([]byte(nil), messages...)
	}
	if len(rich) > 0 {
		if err := scanRich(&t, rich); err != nil {
			return nil, err
		}
	}
	return &t, nil
}

// scanRich fills t's fields of the richer record from the JSON array
// richColumns reads.
func scanRich(t *capture.Turn, b []byte) error {
	var v struct {
		model                     string
		prompt, completion, total *int64
		latency                   *float64
		trace, span, parent       string
	}
	if err := json.Unmarshal(b, &[]any{&v.model, &v.prompt, &v.completion, &v.total, &v.latency, &v.trace, &v.span, &v.parent}); err != nil {
		return fmt.Errorf("turn %s: the richer record %s: %w", t.ID, b, err)
	}
	t.Model, t.LatencyMS, t.TraceID, t.SpanID, t.ParentID = v.model, v.latency, v.trace, v.span, v.parent
	if v.prompt != nil && v.completion != nil && v.total != nil {
		t.Usage = &capture.Usage{PromptTokens: *v.prompt, CompletionTokens: *v.completion, TotalTokens: *v.total}
	}
	return nil
}

// EachTurn streams a session's turns, in order.
func (cs *CaptureStore) EachTurn(ctx context.Context, sessionID string, fn func(*capture.Turn) error) error {
	ctx, cancel := context.WithTimeout(ctx, cs.db.StreamTimeout)
	defer cancel()
	rows, err := cs.db.query(ctx, `SELECT `+cs.db.turnColumns()+` FROM turns t WHERE t.session_id = ? ORDER BY t.turn_number`, sessionID)
	if err != nil {
		return dbError(fmt.Errorf("turns of %s: %w", sessionID, err))
	}
	defer rows.Close()
	for rows.Next() {
		t, err := scanTurn(rows)
		if err != nil {
			return dbError(err)
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	return dbError(rows.Err())
}

// RecentTurns returns up to limit of the latest turns of a session, oldest first.
func (cs *CaptureStore) RecentTurns(ctx context.Context, sessionID string, limit int) ([]*capture.Turn, error) {
	ctx, cancel := cs.db.limit(ctx)
	defer cancel()
	rows, err := cs.db.query(ctx, `SELECT `+cs.db.turnColumns()+` FROM turns t WHERE t.session_id = ?
		ORDER BY t.turn_number DESC LIMIT ?`, sessionID, limit)
	if err != nil {
		return nil, dbError(fmt.Errorf("recent turns of %s: %w", sessionID, err))
	}
	defer rows.Close()
	var out []*capture.Turn
	for rows.Next() {
		t, err := scanTurn(rows)
		if err != nil {
			return nil, dbError(err)
		}
		out = append(out, t)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, dbError(rows.Err())
}
