package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm"
)

// The number of calls ListCalls returns when the filter sets no limit, and
// the most it returns.
const (
	DefaultCallLimit = 50
	MaxCallLimit     = 1000
)

// callIDLength is the length of an id RecordCall gives a call that has none.
const callIDLength = 12

// LLMCallStore keeps the record of every LLM call: the llm.CallStore.
type LLMCallStore struct{ db *DB }

// LLMCalls returns the store of LLM calls.
func (db *DB) LLMCalls() *LLMCallStore { return &LLMCallStore{db} }

var _ llm.CallStore = (*LLMCallStore)(nil)

// RecordCall stores c. A call without an ID gets one, and one without a
// CreatedAt gets the current time; CreatedAt is kept in UTC to the
// microsecond. What no database can store in text (NUL characters, invalid
// UTF-8, which small models do emit) is replaced as hone.CleanText does.
func (cs *LLMCallStore) RecordCall(ctx context.Context, c *llm.Call) error {
	ctx, cancel := cs.db.limit(ctx)
	defer cancel()
	db := cs.db
	if c.ID == "" {
		c.ID = hone.NewID(callIDLength)
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = db.now()
	} else {
		c.CreatedAt = c.CreatedAt.UTC().Truncate(time.Microsecond)
	}
	req, err := json.Marshal(c.Request)
	if err != nil {
		return fmt.Errorf("record llm call %s: llm_request: %w", c.ID, err)
	}
	var resp, callErr, latency, prompt, completion, total any
	if c.Response != nil {
		b, err := json.Marshal(c.Response)
		if err != nil {
			return fmt.Errorf("record llm call %s: llm_response: %w", c.ID, err)
		}
		resp, latency = string(hone.CleanJSON(b)), c.Response.LatencyMS
		u := c.Response.Usage
		prompt, completion, total = u.PromptTokens, u.CompletionTokens, u.TotalTokens
	}
	if c.Error != "" {
		callErr = hone.CleanText(c.Error)
	}
	return db.update(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `INSERT INTO llm_calls (id, purpose, cause_type, cause_id, model, llm_request,
			llm_response, error, latency_ms, prompt_tokens, completion_tokens, total_tokens, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			c.ID, hone.CleanText(c.Purpose), hone.CleanText(c.CauseType), hone.CleanText(c.CauseID),
			hone.CleanText(c.Request.Model), string(hone.CleanJSON(req)),
			resp, callErr, latency, prompt, completion, total, c.CreatedAt); err != nil {
			return fmt.Errorf("record llm call %s: %w", c.ID, err)
		}
		return nil
	})
}

// ListCalls returns the calls matching f, newest first: at most f.Limit,
// DefaultCallLimit when it is 0 and never more than MaxCallLimit.
func (cs *LLMCallStore) ListCalls(ctx context.Context, f llm.CallFilter) ([]llm.Call, error) {
	ctx, cancel := cs.db.limit(ctx)
	defer cancel()
	db := cs.db
	var where []string
	var args []any
	if f.Purpose != "" {
		where, args = append(where, "purpose = ?"), append(args, f.Purpose)
	}
	if f.CauseID != "" {
		where, args = append(where, "cause_id = ?"), append(args, f.CauseID)
	}
	query := `SELECT id, purpose, cause_type, cause_id, llm_request, llm_response, error, ` +
		db.timeText("created_at") + ` FROM llm_calls`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultCallLimit
	}
	query += ` ORDER BY created_at DESC, id DESC LIMIT ?`
	args = append(args, min(limit, MaxCallLimit))
	rows, err := db.query(ctx, query, args...)
	if err != nil {
		return nil, dbError(fmt.Errorf("list llm calls: %w", err))
	}
	defer rows.Close()
	out := []llm.Call{}
	for rows.Next() {
		c, err := scanCall(rows)
		if err != nil {
			return nil, dbError(fmt.Errorf("list llm calls: %w", err))
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, dbError(fmt.Errorf("list llm calls: %w", err))
	}
	return out, nil
}

func scanCall(row scanner) (llm.Call, error) {
	var c llm.Call
	var req, resp []byte
	var callErr *string
	var at rawTime
	if err := row.Scan(&c.ID, &c.Purpose, &c.CauseType, &c.CauseID, &req, &resp, &callErr, &at); err != nil {
		return c, err
	}
	if err := json.Unmarshal(req, &c.Request); err != nil {
		return c, fmt.Errorf("llm call %s: llm_request: %w", c.ID, err)
	}
	if resp != nil {
		c.Response = &llm.CallResponse{}
		if err := json.Unmarshal(resp, c.Response); err != nil {
			return c, fmt.Errorf("llm call %s: llm_response: %w", c.ID, err)
		}
	}
	if callErr != nil {
		c.Error = *callErr
	}
	var err error
	c.CreatedAt, err = at.Time()
	return c, err
}
