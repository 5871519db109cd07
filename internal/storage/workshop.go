package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/workshop"
)

// WorkshopStore keeps discovery workshops: the workshop.Store.
type WorkshopStore struct{ db *DB }

// Workshops returns the store of discovery workshops.
func (db *DB) Workshops() *WorkshopStore { return &WorkshopStore{db} }

var _ workshop.Store = (*WorkshopStore)(nil)

func (ws *WorkshopStore) workshopColumns() string {
	return `w.id, w.name, w.description, w.input_jsonpath, w.output_jsonpath, w.phase, w.discovery_started,
	w.discovery_randomize, w.trace_limit, w.assigned_count, w.model, w.followup_system_prompt, w.followup_user_prompt,
	w.token_budget, w.trace_count, ` + ws.db.timeText("w.created_at") + `, ` + ws.db.timeText("w.updated_at")
}

func scanWorkshop(row scanner) (*workshop.Workshop, error) {
	var w workshop.Workshop
	var created, updated rawTime
	if err := row.Scan(&w.ID, &w.Name, &w.Description, &w.InputJSONPath, &w.OutputJSONPath, &w.Phase, &w.DiscoveryStarted,
		&w.DiscoveryRandomize, &w.TraceLimit, &w.AssignedCount, &w.Model, &w.FollowupSystemPrompt, &w.FollowupUserPrompt,
		&w.TokenBudget, &w.TraceCount, &created, &updated); err != nil {
		return nil, err
	}
	var err error
	if w.CreatedAt, err = created.Time(); err != nil {
		return nil, err
	}
	if w.UpdatedAt, err = updated.Time(); err != nil {
		return nil, err
	}
	return &w, nil
}

// CreateWorkshop stores a workshop with its first facilitator.
func (ws *WorkshopStore) CreateWorkshop(ctx context.Context, w *workshop.Workshop, m *workshop.Member, tokenHash string) error {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	return ws.db.update(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `INSERT INTO workshops (id, name, description, input_jsonpath, output_jsonpath, phase,
			trace_limit, model, token_budget, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			w.ID, w.Name, w.Description, w.InputJSONPath, w.OutputJSONPath, w.Phase, w.TraceLimit, w.Model, w.TokenBudget,
			w.CreatedAt, w.UpdatedAt); err != nil {
			return fmt.Errorf("create workshop: %w", err)
		}
		return addMember(ctx, tx, m, tokenHash)
	})
}

func addMember(ctx context.Context, tx *Tx, m *workshop.Member, tokenHash string) error {
	if _, err := tx.exec(ctx, `INSERT INTO workshop_members (id, workshop_id, name, email, role, token_hash, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, m.ID, m.WorkshopID, m.Name, m.Email, m.Role, tokenHash, m.CreatedAt); err != nil {
		return fmt.Errorf("add member: %w", err)
	}
	return nil
}

// UpdateWorkshop stores a workshop's settings.
func (ws *WorkshopStore) UpdateWorkshop(ctx context.Context, w *workshop.Workshop) error {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	return ws.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE workshops SET name = ?, description = ?, input_jsonpath = ?, output_jsonpath = ?,
			model = ?, followup_system_prompt = ?, followup_user_prompt = ?, token_budget = ?, updated_at = ? WHERE id = ?`,
			w.Name, w.Description, w.InputJSONPath, w.OutputJSONPath, w.Model, w.FollowupSystemPrompt, w.FollowupUserPrompt,
			w.TokenBudget, w.UpdatedAt, w.ID)
		if err != nil {
			return fmt.Errorf("update workshop: %w", err)
		}
		return mustAffect(res, "workshop", w.ID)
	})
}

// mustAffect is ENOTFOUND when res changed no row.
func mustAffect(res sql.Result, kind, id string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound(kind, id)
	}
	return nil
}

// Workshop returns a workshop.
func (ws *WorkshopStore) Workshop(ctx context.Context, id string) (*workshop.Workshop, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	w, err := scanWorkshop(ws.db.queryRow(ctx, `SELECT `+ws.workshopColumns()+` FROM workshops w WHERE w.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("workshop", id)
	} else if err != nil {
		return nil, dbError(fmt.Errorf("find workshop %q: %w", id, err))
	}
	return w, nil
}

// ListWorkshops returns workshops newest first.
func (ws *WorkshopStore) ListWorkshops(ctx context.Context, ids []string) ([]*workshop.Workshop, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	q := `SELECT ` + ws.workshopColumns() + ` FROM workshops w`
	var args []any
	if ids != nil {
		if len(ids) == 0 {
			return []*workshop.Workshop{}, nil
		}
		q += ` WHERE w.id IN (?` + strings.Repeat(", ?", len(ids)-1) + `)`
		for _, id := range ids {
			args = append(args, id)
		}
	}
	rows, err := ws.db.query(ctx, q+` ORDER BY w.created_at DESC, w.id`, args...)
	return collect(rows, err, "workshops", scanWorkshop)
}

// AddMember stores a member.
func (ws *WorkshopStore) AddMember(ctx context.Context, m *workshop.Member, tokenHash string) error {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	return ws.db.update(ctx, func(tx *Tx) error { return addMember(ctx, tx, m, tokenHash) })
}

// SetMemberToken replaces a member's token.
func (ws *WorkshopStore) SetMemberToken(ctx context.Context, workshopID, memberID, tokenHash string) error {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	return ws.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE workshop_members SET token_hash = ? WHERE workshop_id = ? AND id = ?`,
			tokenHash, workshopID, memberID)
		if err != nil {
			return fmt.Errorf("set member token: %w", err)
		}
		return mustAffect(res, "member", memberID)
	})
}

const memberColumns = `m.id, m.workshop_id, m.name, m.email, m.role, m.completed, `

func (ws *WorkshopStore) scanMember(row scanner) (*workshop.Member, error) {
	var m workshop.Member
	var at rawTime
	if err := row.Scan(&m.ID, &m.WorkshopID, &m.Name, &m.Email, &m.Role, &m.Completed, &at); err != nil {
		return nil, err
	}
	var err error
	m.CreatedAt, err = at.Time()
	return &m, err
}

// Members returns a workshop's members in the order they joined.
func (ws *WorkshopStore) Members(ctx context.Context, workshopID string) ([]*workshop.Member, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	rows, err := ws.db.query(ctx, `SELECT `+memberColumns+ws.db.timeText("m.created_at")+`
		FROM workshop_members m WHERE m.workshop_id = ? ORDER BY m.created_at, m.id`, workshopID)
	return collect(rows, err, "members", ws.scanMember)
}

// MemberByToken returns the member with the token.
func (ws *WorkshopStore) MemberByToken(ctx context.Context, tokenHash string) (*workshop.Member, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	m, err := ws.scanMember(ws.db.queryRow(ctx, `SELECT `+memberColumns+ws.db.timeText("m.created_at")+`
		FROM workshop_members m WHERE m.token_hash = ?`, tokenHash))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, hone.Errorf(hone.ENOTFOUND, "no member has this token")
	} else if err != nil {
		return nil, dbError(err)
	}
	return m, nil
}

// AddTraces appends traces.
func (ws *WorkshopStore) AddTraces(ctx context.Context, workshopID string, traces []*workshop.Trace) error {
	ctx, cancel := context.WithTimeout(ctx, ws.db.StreamTimeout)
	defer cancel()
	return ws.db.update(ctx, func(tx *Tx) error {
		var count int
		if err := tx.queryRow(ctx, `UPDATE workshops SET trace_count = trace_count + ? WHERE id = ? RETURNING trace_count`,
			len(traces), workshopID).Scan(&count); errors.Is(err, sql.ErrNoRows) {
			return notFound("workshop", workshopID)
		} else if err != nil {
			return fmt.Errorf("count traces: %w", err)
		}
		first := count - len(traces)
		const cols = 10
		for start := 0; start < len(traces); start += 50 {
			chunk := traces[start:min(start+50, len(traces))]
			row := "(?" + strings.Repeat(", ?", cols-1) + ")"
			args := make([]any, 0, len(chunk)*cols)
			for i, t := range chunk {
				t.Position = first + start + i
				args = append(args, workshopID, t.ID, t.Position, string(t.Input), string(t.Output), nullText(t.Context),
					nullText(t.Metadata), t.InputText, t.OutputText, t.CreatedAt)
			}
			if _, err := tx.exec(ctx, `INSERT INTO workshop_traces (workshop_id, id, position, input, output, context, metadata,
				input_text, output_text, created_at) VALUES `+row+strings.Repeat(", "+row, len(chunk)-1), args...); err != nil {
				if hone.ErrorCode(dbError(err)) == hone.ECONFLICT {
					return hone.Errorf(hone.ECONFLICT, "a trace id of the import is a trace of the workshop already")
				}
				return fmt.Errorf("add traces: %w", err)
			}
		}
		_, err := tx.exec(ctx, `UPDATE workshops SET updated_at = ? WHERE id = ?`, tx.now, workshopID)
		return err
	})
}

func (ws *WorkshopStore) traceColumns() string {
	return `t.id, t.workshop_id, t.position, t.input, t.output, t.context, t.metadata, t.input_text, t.output_text, ` +
		ws.db.timeText("t.created_at")
}

func scanTrace(row scanner) (*workshop.Trace, error) {
	var t workshop.Trace
	var in, out, ctx, meta []byte
	var at rawTime
	if err := row.Scan(&t.ID, &t.WorkshopID, &t.Position, &in, &out, &ctx, &meta, &t.InputText, &t.OutputText, &at); err != nil {
		return nil, err
	}
	t.Input, t.Output = append(json.RawMessage(nil), in...), append(json.RawMessage(nil), out...)
	if len(ctx) > 0 {
		t.Context = append(json.RawMessage(nil), ctx...)
	}
	if len(meta) > 0 {
		t.Metadata = append(json.RawMessage(nil), meta...)
	}
	var err error
	t.CreatedAt, err = at.Time()
	return &t, err
}

// Traces returns a workshop's traces by position.
func (ws *WorkshopStore) Traces(ctx context.Context, workshopID string, limit int) ([]*workshop.Trace, error) {
	ctx, cancel := context.WithTimeout(ctx, ws.db.StreamTimeout)
	defer cancel()
	q := `SELECT ` + ws.traceColumns() + ` FROM workshop_traces t WHERE t.workshop_id = ?`
	args := []any{workshopID}
	if limit > 0 {
		q += ` AND t.position < ?`
		args = append(args, limit)
	}
	rows, err := ws.db.query(ctx, q+` ORDER BY t.position`, args...)
	return collect(rows, err, "traces", scanTrace)
}

// Trace returns one trace.
func (ws *WorkshopStore) Trace(ctx context.Context, workshopID, traceID string) (*workshop.Trace, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	t, err := scanTrace(ws.db.queryRow(ctx, `SELECT `+ws.traceColumns()+` FROM workshop_traces t
		WHERE t.workshop_id = ? AND t.id = ?`, workshopID, traceID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("trace", traceID)
	} else if err != nil {
		return nil, dbError(err)
	}
	return t, nil
}

// TraceExists reports whether a workshop has a trace, for the scores that
// judge one (score.Traces): nil, or an ENOTFOUND error.
func (ws *WorkshopStore) TraceExists(ctx context.Context, workshopID, traceID string) error {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	var one int
	err := ws.db.queryRow(ctx, `SELECT 1 FROM workshop_traces WHERE workshop_id = ? AND id = ?`, workshopID, traceID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return notFound("trace", traceID)
	}
	return dbError(err)
}

// BeginDiscovery starts discovery.
func (ws *WorkshopStore) BeginDiscovery(ctx context.Context, workshopID string, limit int, randomize bool) (*workshop.Workshop, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	err := ws.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE workshops SET phase = ?, discovery_started = ?, discovery_randomize = ?, trace_limit = ?,
			assigned_count = CASE WHEN trace_count < ? THEN trace_count ELSE ? END, updated_at = ?
			WHERE id = ? AND discovery_started = ? AND phase IN (?, ?)`,
			workshop.PhaseDiscovery, true, randomize, limit, limit, limit, tx.now, workshopID, false,
			workshop.PhaseIntake, workshop.PhaseDiscovery)
		if err != nil {
			return fmt.Errorf("begin discovery: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return hone.Errorf(hone.ECONFLICT, "discovery of workshop %s started already, or the workshop is past it", workshopID)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ws.Workshop(ctx, workshopID)
}

// SetPhase moves a workshop from one phase to another.
func (ws *WorkshopStore) SetPhase(ctx context.Context, workshopID, from, to string) error {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	return ws.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE workshops SET phase = ?, updated_at = ? WHERE id = ? AND phase = ?`, to, tx.now, workshopID, from)
		if err != nil {
			return fmt.Errorf("set phase: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return hone.Errorf(hone.ECONFLICT, "the phase of workshop %s changed meanwhile", workshopID)
		}
		return nil
	})
}
