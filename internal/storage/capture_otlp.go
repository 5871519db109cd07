package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/honehq/hone"
)

// TurnBySpan returns the id of the turn recorded for the span spanID of
// the trace traceID (the first, should there be several), by the index
// turns_trace: what OpenTelemetry evaluation events are linked by.
func (cs *CaptureStore) TurnBySpan(ctx context.Context, traceID, spanID string) (string, error) {
	return cs.turnID(ctx, `SELECT t.id FROM turns t WHERE t.trace_id = ? AND t.span_id = ? ORDER BY t.created_at, t.id LIMIT 1`,
		"span "+traceID+"/"+spanID, traceID, spanID)
}

// TurnByTrace returns the id of the last turn recorded in the trace
// traceID, by the index turns_trace: what an evaluation of a span that is
// not a turn's (the trace's root) judges.
func (cs *CaptureStore) TurnByTrace(ctx context.Context, traceID string) (string, error) {
	return cs.turnID(ctx, `SELECT t.id FROM turns t WHERE t.trace_id = ? ORDER BY t.created_at DESC, t.id DESC LIMIT 1`,
		"trace "+traceID, traceID)
}

// TurnByResponseID returns the id of the turn whose metadata keeps the
// model's response id under key (gen_ai.response.id): the latest, should
// there be several. No index serves it; the span's ids are the fast link.
func (cs *CaptureStore) TurnByResponseID(ctx context.Context, key, responseID string) (string, error) {
	cond := `json_extract(t.metadata, ?) = ?`
	path := `$."` + key + `"`
	if cs.db.dialect != SQLite {
		cond, path = `t.metadata->>? = ?`, key
	}
	return cs.turnID(ctx, `SELECT t.id FROM turns t WHERE `+cond+` ORDER BY t.created_at DESC, t.id LIMIT 1`,
		"response id "+responseID, path, responseID)
}

// turnID runs query, which selects one turn id; ENOTFOUND names what when
// it selects none.
func (cs *CaptureStore) turnID(ctx context.Context, query, what string, args ...any) (string, error) {
	ctx, cancel := cs.db.limit(ctx)
	defer cancel()
	var id string
	err := cs.db.queryRow(ctx, query, args...).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", hone.Errorf(hone.ENOTFOUND, "no turn was recorded for the %s", what)
	} else if err != nil {
		return "", dbError(fmt.Errorf("find the turn of the %s: %w", what, err))
	}
	return id, nil
}

// TurnSpans returns the trace and span id of each of the turns ids names
// that has a trace id (the span id "" when it has none).
func (cs *CaptureStore) TurnSpans(ctx context.Context, ids []string) (map[string][2]string, error) {
	out := make(map[string][2]string, len(ids))
	for part := range chunkIDs(ids) {
		if err := cs.turnSpans(ctx, part, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (cs *CaptureStore) turnSpans(ctx context.Context, ids []string, out map[string][2]string) error {
	ctx, cancel := cs.db.limit(ctx)
	defer cancel()
	rows, err := cs.db.query(ctx, `SELECT t.id, t.trace_id, t.span_id FROM turns t
		WHERE t.trace_id IS NOT NULL AND t.id IN (`+placeholders(len(ids))+`)`, anySlice(ids)...)
	if err != nil {
		return dbError(fmt.Errorf("find the spans of turns: %w", err))
	}
	defer rows.Close()
	for rows.Next() {
		var id, trace string
		var span sql.NullString
		if err := rows.Scan(&id, &trace, &span); err != nil {
			return dbError(fmt.Errorf("find the spans of turns: %w", err))
		}
		out[id] = [2]string{trace, span.String}
	}
	if err := rows.Err(); err != nil {
		return dbError(fmt.Errorf("find the spans of turns: %w", err))
	}
	return nil
}
