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

func (ws *WorkshopStore) analysisColumns() string {
	return `a.id, a.workshop_id, a.template_used, a.model_requested, a.analysis_data, a.findings, a.disagreements, a.summary,
	a.participant_count, a.model_used, a.status, a.chunks_done, a.chunks_total, a.error, a.warnings, a.dropped_evidence,
	a.requested_by, ` + ws.db.timeText("a.created_at") + `, ` + ws.db.timeText("a.updated_at")
}

func scanAnalysis(row scanner) (*workshop.Analysis, error) {
	var a workshop.Analysis
	var findings, disagreements, warnings []byte
	var created, updated rawTime
	if err := row.Scan(&a.ID, &a.WorkshopID, &a.Template, &a.ModelRequested, &a.AnalysisData, &findings, &disagreements,
		&a.Summary, &a.ParticipantCount, &a.Model, &a.Status, &a.ChunksDone, &a.ChunksTotal, &a.Error, &warnings,
		&a.DroppedEvidence, &a.RequestedBy, &created, &updated); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		b []byte
		v any
	}{{findings, &a.Findings}, {disagreements, &a.Disagreements}, {warnings, &a.Warnings}} {
		if err := json.Unmarshal(f.b, f.v); err != nil {
			return nil, fmt.Errorf("read analysis %s: %w", a.ID, err)
		}
	}
	for _, l := range []*[]workshop.Disagreement{&a.Disagreements.High, &a.Disagreements.Medium, &a.Disagreements.Lower} {
		if *l == nil {
			*l = []workshop.Disagreement{}
		}
	}
	if a.Findings == nil {
		a.Findings = []workshop.Finding{}
	}
	if a.Warnings == nil {
		a.Warnings = []string{}
	}
	var err error
	if a.CreatedAt, err = created.Time(); err != nil {
		return nil, err
	}
	a.UpdatedAt, err = updated.Time()
	return &a, err
}

// analysisJSON encodes the JSON columns of a run.
func analysisJSON(a *workshop.Analysis) (findings, disagreements, warnings string, err error) {
	var b [3][]byte
	for i, v := range []any{a.Findings, a.Disagreements, a.Warnings} {
		if b[i], err = json.Marshal(v); err != nil {
			return "", "", "", err
		}
	}
	return string(hone.CleanJSON(b[0])), string(hone.CleanJSON(b[1])), string(hone.CleanJSON(b[2])), nil
}

// CreateAnalysis stores a new run.
func (ws *WorkshopStore) CreateAnalysis(ctx context.Context, a *workshop.Analysis) error {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	f, d, w, err := analysisJSON(a)
	if err != nil {
		return err
	}
	return ws.db.update(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `INSERT INTO discovery_analysis (id, workshop_id, template_used, model_requested, findings,
			disagreements, warnings, status, requested_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			a.ID, a.WorkshopID, a.Template, a.ModelRequested, f, d, w, a.Status, a.RequestedBy, a.CreatedAt, a.UpdatedAt)
		if err != nil {
			return fmt.Errorf("create analysis: %w", err)
		}
		return nil
	})
}

// ClaimAnalysis marks a queued run running.
func (ws *WorkshopStore) ClaimAnalysis(ctx context.Context, id string) (*workshop.Analysis, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	var a *workshop.Analysis
	err := ws.db.update(ctx, func(tx *Tx) error {
		if id == "" {
			err := tx.queryRow(ctx, `SELECT id FROM discovery_analysis WHERE status = ? ORDER BY created_at, id LIMIT 1`,
				workshop.StatusQueued).Scan(&id)
			if errors.Is(err, sql.ErrNoRows) {
				return hone.Errorf(hone.ENOTFOUND, "no analysis is queued")
			} else if err != nil {
				return err
			}
		}
		res, err := tx.exec(ctx, `UPDATE discovery_analysis SET status = ?, attempts = attempts + 1, heartbeat_at = ?, updated_at = ?
			WHERE id = ? AND status = ?`, workshop.StatusRunning, tx.now, tx.now, id, workshop.StatusQueued)
		if err != nil {
			return fmt.Errorf("claim analysis: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return hone.Errorf(hone.ENOTFOUND, "analysis %s is not queued (another worker took it, or it ran)", id)
		}
		a, err = scanAnalysis(tx.queryRow(ctx, `SELECT `+ws.analysisColumns()+` FROM discovery_analysis a WHERE a.id = ?`, id))
		return err
	})
	return a, err
}

// Heartbeat notes a running run's progress.
func (ws *WorkshopStore) Heartbeat(ctx context.Context, id string, done, total int) error {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	return ws.db.update(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `UPDATE discovery_analysis SET heartbeat_at = ?, chunks_done = ?, chunks_total = ?
			WHERE id = ? AND status = ?`, tx.now, done, total, id, workshop.StatusRunning)
		return err
	})
}

// SaveAnalysis stores a run's results and status.
func (ws *WorkshopStore) SaveAnalysis(ctx context.Context, a *workshop.Analysis) error {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	f, d, w, err := analysisJSON(a)
	if err != nil {
		return err
	}
	return ws.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE discovery_analysis SET analysis_data = ?, findings = ?, disagreements = ?, summary = ?,
			participant_count = ?, model_used = ?, status = ?, chunks_done = ?, chunks_total = ?, error = ?, warnings = ?,
			dropped_evidence = ?, updated_at = ? WHERE id = ?`,
			hone.CleanText(a.AnalysisData), f, d, hone.CleanText(a.Summary), a.ParticipantCount, hone.CleanText(a.Model), a.Status,
			a.ChunksDone, a.ChunksTotal, hone.CleanText(a.Error), w, a.DroppedEvidence, tx.now, a.ID)
		if err != nil {
			return fmt.Errorf("save analysis: %w", err)
		}
		return mustAffect(res, "analysis", a.ID)
	})
}

// RequeueStale takes up runs whose server stopped.
func (ws *WorkshopStore) RequeueStale(ctx context.Context, before time.Time, maxAttempts int) (int, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	var n int64
	err := ws.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE discovery_analysis SET status = ?, error = ?, updated_at = ?
			WHERE status = ? AND heartbeat_at < ? AND attempts >= ?`, workshop.StatusFailed,
			"The analysis was interrupted (the server stopped) and did not finish when it was run again.", tx.now,
			workshop.StatusRunning, before.UTC(), maxAttempts)
		if err != nil {
			return fmt.Errorf("fail interrupted analyses: %w", err)
		}
		failed, _ := res.RowsAffected()
		res, err = tx.exec(ctx, `UPDATE discovery_analysis SET status = ?, updated_at = ? WHERE status = ? AND heartbeat_at < ?`,
			workshop.StatusQueued, tx.now, workshop.StatusRunning, before.UTC())
		if err != nil {
			return fmt.Errorf("requeue interrupted analyses: %w", err)
		}
		requeued, _ := res.RowsAffected()
		n = failed + requeued
		return nil
	})
	return int(n), err
}

// Analysis returns one run.
func (ws *WorkshopStore) Analysis(ctx context.Context, workshopID, id string) (*workshop.Analysis, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	a, err := scanAnalysis(ws.db.queryRow(ctx, `SELECT `+ws.analysisColumns()+` FROM discovery_analysis a
		WHERE a.workshop_id = ? AND a.id = ?`, workshopID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("analysis", id)
	} else if err != nil {
		return nil, dbError(err)
	}
	return a, nil
}

// ListAnalyses returns runs newest first.
func (ws *WorkshopStore) ListAnalyses(ctx context.Context, workshopID, template string) ([]*workshop.Analysis, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	q := `SELECT ` + ws.analysisColumns() + ` FROM discovery_analysis a WHERE a.workshop_id = ?`
	args := []any{workshopID}
	if template != "" {
		q, args = q+` AND a.template_used = ?`, append(args, template)
	}
	rows, err := ws.db.query(ctx, q+` ORDER BY a.created_at DESC, a.id DESC`, args...)
	return collect(rows, err, "analyses", scanAnalysis)
}

// AnalysisRuns returns runs newest first without their results: the
// findings, disagreements and analysis_data are left empty.
func (ws *WorkshopStore) AnalysisRuns(ctx context.Context, workshopID string) ([]*workshop.Analysis, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	cols := strings.NewReplacer("a.analysis_data", "''", "a.findings", "'[]'", "a.disagreements", "'{}'").Replace(ws.analysisColumns())
	rows, err := ws.db.query(ctx, `SELECT `+cols+` FROM discovery_analysis a WHERE a.workshop_id = ?
		ORDER BY a.created_at DESC, a.id DESC`, workshopID)
	return collect(rows, err, "analyses", scanAnalysis)
}

// Templates returns a workshop's own templates.
func (ws *WorkshopStore) Templates(ctx context.Context, workshopID string) ([]workshop.Template, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	rows, err := ws.db.query(ctx, `SELECT name, title, instruction, created_by, `+ws.db.timeText("created_at")+`
		FROM analysis_templates WHERE workshop_id = ? ORDER BY name`, workshopID)
	if err != nil {
		return nil, dbError(fmt.Errorf("list templates: %w", err))
	}
	defer rows.Close()
	out := []workshop.Template{}
	for rows.Next() {
		var t workshop.Template
		var at rawTime
		if err := rows.Scan(&t.Name, &t.Title, &t.Instruction, &t.CreatedBy, &at); err != nil {
			return nil, dbError(err)
		}
		if t.CreatedAt, err = at.Time(); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, dbError(rows.Err())
}

// AddTemplate stores a workshop's own template.
func (ws *WorkshopStore) AddTemplate(ctx context.Context, workshopID string, t workshop.Template) error {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	return ws.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `INSERT INTO analysis_templates (workshop_id, name, title, instruction, created_by, created_at)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (workshop_id, name) DO NOTHING`,
			workshopID, t.Name, t.Title, t.Instruction, t.CreatedBy, t.CreatedAt)
		if err != nil {
			return fmt.Errorf("add template: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return hone.Errorf(hone.ECONFLICT, "the workshop has a template %s already", t.Name)
		}
		return nil
	})
}

func (ws *WorkshopStore) draftColumns() string {
	return `d.id, d.workshop_id, d.text, d.source_type, d.source_analysis_id, d.source_trace_ids, d.group_id, d.group_name,
	d.promoted_by, ` + ws.db.timeText("d.promoted_at")
}

func scanDraft(row scanner) (*workshop.DraftItem, error) {
	var it workshop.DraftItem
	var analysis, groupID, groupName sql.NullString
	var ids []byte
	var at rawTime
	if err := row.Scan(&it.ID, &it.WorkshopID, &it.Text, &it.SourceType, &analysis, &ids, &groupID, &groupName,
		&it.PromotedBy, &at); err != nil {
		return nil, err
	}
	it.SourceAnalysisID, it.GroupID, it.GroupName = analysis.String, groupID.String, groupName.String
	if err := json.Unmarshal(ids, &it.SourceTraceIDs); err != nil {
		return nil, fmt.Errorf("read draft item %s: %w", it.ID, err)
	}
	if it.SourceTraceIDs == nil {
		it.SourceTraceIDs = []string{}
	}
	var err error
	it.PromotedAt, err = at.Time()
	return &it, err
}

// AddDraftItem stores a draft item.
func (ws *WorkshopStore) AddDraftItem(ctx context.Context, it *workshop.DraftItem) error {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	ids, err := json.Marshal(it.SourceTraceIDs)
	if err != nil {
		return err
	}
	return ws.db.update(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `INSERT INTO draft_rubric_items (id, workshop_id, text, source_type, source_analysis_id,
			source_trace_ids, group_id, group_name, promoted_by, promoted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			it.ID, it.WorkshopID, it.Text, it.SourceType, nullString(it.SourceAnalysisID), string(hone.CleanJSON(ids)),
			nullString(it.GroupID), nullString(it.GroupName), it.PromotedBy, it.PromotedAt)
		if err != nil {
			return fmt.Errorf("add draft item: %w", err)
		}
		return nil
	})
}

// UpdateDraftItem stores an item's text and group.
func (ws *WorkshopStore) UpdateDraftItem(ctx context.Context, it *workshop.DraftItem) error {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	return ws.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE draft_rubric_items SET text = ?, group_id = ?, group_name = ? WHERE workshop_id = ? AND id = ?`,
			it.Text, nullString(it.GroupID), nullString(it.GroupName), it.WorkshopID, it.ID)
		if err != nil {
			return fmt.Errorf("update draft item: %w", err)
		}
		return mustAffect(res, "draft rubric item", it.ID)
	})
}

// DeleteDraftItem removes an item.
func (ws *WorkshopStore) DeleteDraftItem(ctx context.Context, workshopID, id string) error {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	return ws.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `DELETE FROM draft_rubric_items WHERE workshop_id = ? AND id = ?`, workshopID, id)
		if err != nil {
			return fmt.Errorf("delete draft item: %w", err)
		}
		return mustAffect(res, "draft rubric item", id)
	})
}

// DraftItems returns a workshop's draft items in the order they were promoted.
func (ws *WorkshopStore) DraftItems(ctx context.Context, workshopID string) ([]*workshop.DraftItem, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	rows, err := ws.db.query(ctx, `SELECT `+ws.draftColumns()+` FROM draft_rubric_items d WHERE d.workshop_id = ?
		ORDER BY d.promoted_at, d.id`, workshopID)
	return collect(rows, err, "draft items", scanDraft)
}

// RenameGroup renames a group.
func (ws *WorkshopStore) RenameGroup(ctx context.Context, workshopID, groupID, name string) (int, error) {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	var n int64
	err := ws.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE draft_rubric_items SET group_name = ? WHERE workshop_id = ? AND group_id = ?`,
			name, workshopID, groupID)
		if err != nil {
			return fmt.Errorf("rename group: %w", err)
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return int(n), err
}

// ApplyGroups regroups every item of a workshop in one transaction.
func (ws *WorkshopStore) ApplyGroups(ctx context.Context, workshopID string, groups []workshop.Group) error {
	ctx, cancel := ws.db.limit(ctx)
	defer cancel()
	return ws.db.update(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `UPDATE draft_rubric_items SET group_id = NULL, group_name = NULL WHERE workshop_id = ?`,
			workshopID); err != nil {
			return fmt.Errorf("ungroup draft items: %w", err)
		}
		for _, g := range groups {
			if len(g.ItemIDs) == 0 {
				continue
			}
			args := []any{g.ID, g.Name, workshopID}
			for _, id := range g.ItemIDs {
				args = append(args, id)
			}
			if _, err := tx.exec(ctx, `UPDATE draft_rubric_items SET group_id = ?, group_name = ? WHERE workshop_id = ?
				AND id IN (?`+strings.Repeat(", ?", len(g.ItemIDs)-1)+`)`, args...); err != nil {
				return fmt.Errorf("group draft items: %w", err)
			}
		}
		return nil
	})
}
