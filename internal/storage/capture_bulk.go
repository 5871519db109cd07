package storage

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
)

// bulkRows is how many turns one INSERT statement of recordBulk writes.
const bulkRows = 50

// slot is the turns a batch appends to one session.
type slot struct {
	session *capture.Session
	turns   []*capture.Turn
}

// recordBulk records many turns with few statements: each conversation is
// locked once (in id order, so that concurrent batches cannot deadlock),
// each session's count of turns is raised once, and the turns are inserted
// many to a statement. The turns of a conversation are numbered in the
// order of recs. A turn whose id or key is taken is a replay or an
// ECONFLICT result, as in recordKeyed; an id or key given twice in recs is
// recorded once. A unique violation (another transaction took an id or key
// meanwhile) fails the whole call with ECONFLICT.
func recordBulk(ctx context.Context, tx *Tx, recs []capture.TurnRecord) ([]capture.TurnResult, error) {
	out := make([]capture.TurnResult, len(recs))
	taken, err := lookupKeys(ctx, tx, recs)
	if err != nil {
		return nil, err
	}
	convs := make([]string, 0, len(recs))
	for i := range recs {
		convs = append(convs, recs[i].Input.ConversationID)
	}
	slices.Sort(convs)
	current := map[string]*slot{}
	var slots []*slot
	for _, c := range slices.Compact(convs) {
		s, err := lockConversation(ctx, tx, c)
		if err != nil {
			return nil, err
		}
		current[c] = &slot{session: s}
	}
	// pending maps an id or key of recs to the index of the first rec that has it.
	pending := map[string]int{}
	for i := range recs {
		rec := &recs[i]
		if res, ok := takenResult(recs, i, taken, pending, out); ok {
			out[i] = res
			continue
		}
		in := &rec.Input
		sl := current[in.ConversationID]
		if sl.session != nil && in.PromptVersion != "" && in.PromptVersion != sl.session.PromptVersion {
			if err := endSession(ctx, tx, sl.session); err != nil {
				return nil, err
			}
			sl = &slot{}
			current[in.ConversationID] = sl
		}
		if sl.session == nil {
			if sl.session, err = startSession(ctx, tx, in.Tester(), in.PromptVersion, in.Branch); err != nil {
				return nil, err
			}
		}
		if len(sl.turns) == 0 {
			slots = append(slots, sl)
		}
		t := newTurn(tx, rec, sl.session.ID)
		sl.turns = append(sl.turns, t)
		out[i].Turn = t
		for _, k := range keysOf(rec) {
			pending[k] = i
		}
	}
	var rows []*capture.TurnRecord
	var turns []*capture.Turn
	for _, sl := range slots {
		var total int
		if err := tx.queryRow(ctx, `UPDATE sessions SET total_turns = total_turns + ? WHERE id = ? RETURNING total_turns`,
			len(sl.turns), sl.session.ID).Scan(&total); err != nil {
			return nil, fmt.Errorf("number turns: %w", err)
		}
		for j, t := range sl.turns {
			t.Number = total - len(sl.turns) + j + 1
		}
	}
	for i := range recs {
		if t := out[i].Turn; t != nil && !out[i].Replayed && out[i].Err == nil {
			measure(t, &recs[i])
			rows, turns = append(rows, &recs[i]), append(turns, t)
		}
	}
	for start := 0; start < len(rows); start += bulkRows {
		end := min(start+bulkRows, len(rows))
		if err := insertTurns(ctx, tx, rows[start:end], turns[start:end]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// keysOf lists the id and idempotency key rec is known by, prefixed so they
// cannot collide.
func keysOf(rec *capture.TurnRecord) []string {
	var out []string
	if rec.Input.ID != "" {
		out = append(out, "id:"+rec.Input.ID)
	}
	if rec.Key != "" {
		out = append(out, "key:"+rec.Key)
	}
	return out
}

// takenTurn is a turn already recorded under an id or key.
type takenTurn struct {
	turn        *capture.Turn
	fingerprint string
}

// lookupKeys finds the turns already recorded under the ids and keys of recs.
func lookupKeys(ctx context.Context, tx *Tx, recs []capture.TurnRecord) (map[string]takenTurn, error) {
	var ids, keys []any
	for i := range recs {
		if v := recs[i].Input.ID; v != "" {
			ids = append(ids, v)
		}
		if v := recs[i].Key; v != "" {
			keys = append(keys, v)
		}
	}
	taken := map[string]takenTurn{}
	for _, k := range []struct {
		column, prefix string
		values         []any
	}{{"id", "id:", ids}, {"idempotency_key", "key:", keys}} {
		for start := 0; start < len(k.values); start += 500 {
			chunk := k.values[start:min(start+500, len(k.values))]
			rows, err := tx.QueryContext(ctx, tx.db.q(`SELECT `+tx.db.turnColumns()+`, t.fingerprint, t.`+k.column+` FROM turns t
				WHERE t.`+k.column+` IN (?`+strings.Repeat(", ?", len(chunk)-1)+`)`), chunk...)
			if err != nil {
				return nil, fmt.Errorf("look up turn %ss: %w", k.column, err)
			}
			for rows.Next() {
				var fp sql.NullString
				var v string
				t, err := scanTurn(rows, &fp, &v)
				if err != nil {
					rows.Close()
					return nil, err
				}
				taken[k.prefix+v] = takenTurn{turn: t, fingerprint: fp.String}
			}
			err = rows.Err()
			rows.Close()
			if err != nil {
				return nil, err
			}
		}
	}
	return taken, nil
}

// takenResult is the result of recs[i] when its id or key is taken
// already, in the database or by an earlier rec of the batch; ok is false
// when it is not.
func takenResult(recs []capture.TurnRecord, i int, taken map[string]takenTurn, pending map[string]int, out []capture.TurnResult) (capture.TurnResult, bool) {
	rec := &recs[i]
	for _, k := range keysOf(rec) {
		field, what, value := "id", "turn id", rec.Input.ID
		if strings.HasPrefix(k, "key:") {
			field, what, value = "Idempotency-Key", "Idempotency-Key", rec.Key
		}
		var turn *capture.Turn
		var fp string
		if t, ok := taken[k]; ok {
			turn, fp = t.turn, t.fingerprint
		} else if j, ok := pending[k]; ok {
			turn, fp = out[j].Turn, recs[j].Fingerprint
		} else {
			continue
		}
		if fp != rec.Fingerprint {
			return capture.TurnResult{Err: &hone.Error{Code: hone.ECONFLICT, Field: field,
				Message: fmt.Sprintf("%s %q was already used for a different turn", what, value)}}, true
		}
		return capture.TurnResult{Turn: turn, Replayed: true}, true
	}
	return capture.TurnResult{}, false
}

// newTurn is rec's turn in session, numbered later.
func newTurn(tx *Tx, rec *capture.TurnRecord, sessionID string) *capture.Turn {
	in := &rec.Input
	id := in.ID
	if id == "" {
		id = hone.NewID(turnIDLength)
	}
	return &capture.Turn{
		ID: id, SessionID: sessionID, UserMessage: in.UserMessage, Response: in.Response,
		Timestamp: tx.now, SearchResults: in.SearchResults, AvgSimilarity: in.AvgSimilarity,
		ProcessingTimeMS: in.ProcessingTimeMS, Metadata: jsonOrEmpty(in.Metadata), Scores: map[string]int{},
		Messages: rec.Messages, Model: in.Model, Usage: in.Usage, LatencyMS: in.LatencyMS, Source: in.Source,
		TraceID: in.TraceID, SpanID: in.SpanID, ParentID: in.ParentID,
	}
}

// measure gives a numbered turn its measurement: the first-response one
// when it is the first of its session and rec has one.
func measure(t *capture.Turn, rec *capture.TurnRecord) {
	m := rec.Measured
	if t.Number == 1 && rec.First != nil {
		m = *rec.First
	}
	if len(m.Metrics) > 0 {
		t.Metrics = m.Metrics
	}
	t.ObjectiveScore = m.Objective
}

// The columns insertTurns writes: every turn's, and those of the richer
// record (but its source and messages), written only when a turn of the
// statement has one of them.
const (
	turnInsertColumns = `id, session_id, turn_number, user_message, response, created_at, search_results, avg_similarity,
	processing_time_ms, metadata, metrics, objective_score, idempotency_key, fingerprint, source`
	turnInsertParams  = 15
	richInsertColumns = `, model, prompt_tokens, completion_tokens, total_tokens, latency_ms, trace_id, span_id, parent_id`
	richInsertParams  = 8
)

// insertTurns inserts numbered, measured turns in one statement, and their
// messages in another.
func insertTurns(ctx context.Context, tx *Tx, recs []*capture.TurnRecord, turns []*capture.Turn) error {
	rich := slices.ContainsFunc(recs, isRich)
	columns, params := turnInsertColumns, turnInsertParams
	if rich {
		columns, params = columns+richInsertColumns, params+richInsertParams
	}
	row := "(?" + strings.Repeat(", ?", params-1) + ")"
	query := `INSERT INTO turns (` + columns + `) VALUES ` + row + strings.Repeat(", "+row, len(turns)-1)
	args := make([]any, 0, len(turns)*params)
	var messages []any
	for i, t := range turns {
		rec := recs[i]
		args = append(args, t.ID, t.SessionID, t.Number, t.UserMessage, t.Response, t.Timestamp,
			nullText(t.SearchResults), rec.Input.AvgSimilarity, rec.Input.ProcessingTimeMS, string(t.Metadata),
			nullText(t.Metrics), t.ObjectiveScore, nullString(rec.Key), nullString(rec.Fingerprint), nullString(rec.Input.Source))
		if rich {
			in := &rec.Input
			var prompt, completion, total any
			if in.Usage != nil {
				prompt, completion, total = in.Usage.PromptTokens, in.Usage.CompletionTokens, in.Usage.TotalTokens
			}
			args = append(args, nullString(in.Model), prompt, completion, total, in.LatencyMS, nullString(in.TraceID),
				nullString(in.SpanID), nullString(in.ParentID))
		}
		if len(rec.Messages) > 0 {
			messages = append(messages, t.SessionID, t.Number, string(rec.Messages))
		}
	}
	if _, err := tx.exec(ctx, query, args...); err != nil {
		return fmt.Errorf("insert turns: %w", err)
	}
	if len(messages) == 0 {
		return nil
	}
	query = `INSERT INTO turn_messages (session_id, turn_number, messages) VALUES (?, ?, ?)` + strings.Repeat(", (?, ?, ?)", len(messages)/3-1)
	if _, err := tx.exec(ctx, query, messages...); err != nil {
		return fmt.Errorf("insert turn messages: %w", err)
	}
	return nil
}

// isRich reports whether rec has a field of the richer record that the
// turns table holds, but its source.
func isRich(rec *capture.TurnRecord) bool {
	in := &rec.Input
	return in.Model != "" || in.Usage != nil || in.LatencyMS != nil || in.TraceID != "" || in.SpanID != "" || in.ParentID != ""
}

// nullText is b as text, or NULL when it is empty.
func nullText(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}

// nullString is s, or NULL when it is empty.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}
