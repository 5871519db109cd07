package storage

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/learning"
)

func (ls *LearningStore) learningColumns() string {
	return `l.id, l.tester_id, l.pattern, l.prompt_adjustment, l.confidence, l.state, l.reason, l.conflicts_with,
	l.source_corrections, l.manual, l.run_id, ` + ls.db.timeText("l.created_at") + `, ` + ls.db.timeText("l.updated_at")
}

func scanLearning(row scanner) (*learning.Learning, error) {
	var l learning.Learning
	var state string
	var sources []byte
	var created, updated rawTime
	if err := row.Scan(&l.ID, &l.TesterID, &l.Pattern, &l.PromptAdjustment, &l.Confidence, &state, &l.Reason,
		&l.ConflictsWith, &sources, &l.Manual, &l.RunID, &created, &updated); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(sources, &l.SourceCorrections); err != nil {
		return nil, fmt.Errorf("read learning %s: %w", l.ID, err)
	}
	l.State = state
	var err error
	if l.CreatedAt, err = created.Time(); err != nil {
		return nil, err
	}
	l.UpdatedAt, err = updated.Time()
	return &l, err
}

// bumpGeneration tells every process that learnings or settings changed.
func bumpGeneration(ctx context.Context, tx *Tx) error {
	_, err := tx.exec(ctx, `UPDATE learning_state SET generation = generation + 1 WHERE id = 1`)
	return err
}

func insertLearning(ctx context.Context, tx *Tx, l *learning.Learning) error {
	sources, err := json.Marshal(l.SourceCorrections)
	if err != nil {
		return err
	}
	if l.SourceCorrections == nil {
		sources = []byte("[]")
	}
	_, err = tx.exec(ctx, `INSERT INTO learnings (id, tester_id, pattern, prompt_adjustment, confidence, state, reason,
		conflicts_with, source_corrections, manual, run_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		l.ID, l.TesterID, l.Pattern, l.PromptAdjustment, l.Confidence, cmp.Or(l.State, learning.StateOK), l.Reason, l.ConflictsWith,
		string(hone.CleanJSON(sources)), l.Manual, l.RunID, l.CreatedAt, l.UpdatedAt)
	if err != nil {
		return fmt.Errorf("insert learning: %w", err)
	}
	return nil
}

// AddLearning stores a learning.
func (ls *LearningStore) AddLearning(ctx context.Context, l *learning.Learning) error {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	return ls.db.update(ctx, func(tx *Tx) error {
		if err := insertLearning(ctx, tx, l); err != nil {
			return err
		}
		return bumpGeneration(ctx, tx)
	})
}

// Learning returns a learning by id.
func (ls *LearningStore) Learning(ctx context.Context, id string) (*learning.Learning, error) {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	l, err := scanLearning(ls.db.queryRow(ctx, `SELECT `+ls.learningColumns()+` FROM learnings l WHERE l.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("learning", id)
	} else if err != nil {
		return nil, dbError(fmt.Errorf("find learning %q: %w", id, err))
	}
	return l, nil
}

// Learnings lists learnings oldest first.
func (ls *LearningStore) Learnings(ctx context.Context, f learning.LearningFilter) ([]*learning.Learning, error) {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	q := `SELECT ` + ls.learningColumns() + ` FROM learnings l`
	var args []any
	switch {
	case f.Everyone:
		q += ` WHERE l.tester_id = ''`
	case f.TesterID != "":
		q, args = q+` WHERE l.tester_id = '' OR l.tester_id = ?`, append(args, f.TesterID)
	}
	rows, err := ls.db.query(ctx, q+` ORDER BY l.created_at, l.id`, args...)
	return collect(rows, err, "learnings", scanLearning)
}

// UpdateLearning saves a learning's texts, confidence and state.
func (ls *LearningStore) UpdateLearning(ctx context.Context, l *learning.Learning) error {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	return ls.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE learnings SET pattern = ?, prompt_adjustment = ?, confidence = ?, state = ?, reason = ?,
			conflicts_with = ?, updated_at = ? WHERE id = ?`, l.Pattern, l.PromptAdjustment, l.Confidence, l.State, l.Reason,
			l.ConflictsWith, l.UpdatedAt, l.ID)
		if err != nil {
			return fmt.Errorf("update learning: %w", err)
		}
		if err := mustAffect(res, "learning", l.ID); err != nil {
			return err
		}
		return bumpGeneration(ctx, tx)
	})
}

// DeleteLearning removes a learning; those in conflict with it are no
// longer.
func (ls *LearningStore) DeleteLearning(ctx context.Context, id string) error {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	return ls.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `DELETE FROM learnings WHERE id = ?`, id)
		if err != nil {
			return fmt.Errorf("delete learning: %w", err)
		}
		if err := mustAffect(res, "learning", id); err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `UPDATE learnings SET state = 'ok', conflicts_with = '', reason = '', updated_at = ?
			WHERE state = 'conflict' AND conflicts_with = ?`, tx.now, id); err != nil {
			return fmt.Errorf("settle conflicts: %w", err)
		}
		return bumpGeneration(ctx, tx)
	})
}

func (ls *LearningStore) runColumns() string {
	return `r.id, r.status, r.error, r.corrections, r.learning_ids, ` + ls.db.timeText("r.created_at") + `, ` +
		ls.db.timeText("r.updated_at")
}

func scanRun(row scanner) (*learning.Run, error) {
	var r learning.Run
	var ids []byte
	var created, updated rawTime
	if err := row.Scan(&r.ID, &r.Status, &r.Error, &r.Corrections, &ids, &created, &updated); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(ids, &r.LearningIDs); err != nil {
		return nil, fmt.Errorf("read run %s: %w", r.ID, err)
	}
	r.Learnings = []*learning.Learning{}
	var err error
	if r.CreatedAt, err = created.Time(); err != nil {
		return nil, err
	}
	r.UpdatedAt, err = updated.Time()
	return &r, err
}

// CreateRun stores a queued run.
func (ls *LearningStore) CreateRun(ctx context.Context, r *learning.Run) error {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	return ls.db.update(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `INSERT INTO learning_runs (id, status, created_at, updated_at) VALUES (?, ?, ?, ?)`,
			r.ID, r.Status, r.CreatedAt, r.UpdatedAt)
		return err
	})
}

// ClaimRun marks a queued run running, one at a time.
func (ls *LearningStore) ClaimRun(ctx context.Context, id string) (*learning.Run, error) {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	var r *learning.Run
	err := ls.db.update(ctx, func(tx *Tx) error {
		var running string
		err := tx.queryRow(ctx, `SELECT id FROM learning_runs WHERE status = ? LIMIT 1`, learning.RunRunning).Scan(&running)
		if err == nil {
			return hone.Errorf(hone.ECONFLICT, "synthesis %s is running: one runs at a time", running)
		} else if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if id == "" {
			err := tx.queryRow(ctx, `SELECT id FROM learning_runs WHERE status = ? ORDER BY created_at, id LIMIT 1`,
				learning.RunQueued).Scan(&id)
			if errors.Is(err, sql.ErrNoRows) {
				return hone.Errorf(hone.ENOTFOUND, "no synthesis is queued")
			} else if err != nil {
				return err
			}
		}
		res, err := tx.exec(ctx, `UPDATE learning_runs SET status = ?, attempts = attempts + 1, heartbeat_at = ?, updated_at = ?
			WHERE id = ? AND status = ?`, learning.RunRunning, tx.now, tx.now, id, learning.RunQueued)
		if err != nil {
			return fmt.Errorf("claim synthesis: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return hone.Errorf(hone.ECONFLICT, "synthesis %s is not queued (it ran, or another worker took it)", id)
		}
		r, err = scanRun(tx.queryRow(ctx, `SELECT `+ls.runColumns()+` FROM learning_runs r WHERE r.id = ?`, id))
		return err
	})
	return r, err
}

// Heartbeat tells that a running run is alive.
func (ls *LearningStore) Heartbeat(ctx context.Context, id string) error {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	return ls.db.update(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `UPDATE learning_runs SET heartbeat_at = ? WHERE id = ? AND status = ?`, tx.now, id, learning.RunRunning)
		return err
	})
}

// FinishRun stores a run's learnings and merges, marks its corrections
// processed and the run done, in one transaction.
func (ls *LearningStore) FinishRun(ctx context.Context, o learning.Outcome) error {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	return ls.db.update(ctx, func(tx *Tx) error {
		var ids []string
		for _, l := range o.Learnings {
			if err := insertLearning(ctx, tx, l); err != nil {
				return err
			}
			ids = append(ids, l.ID)
		}
		for _, m := range o.Merges {
			var raw []byte
			if err := tx.queryRow(ctx, `SELECT source_corrections FROM learnings WHERE id = ?`, m.LearningID).Scan(&raw); err != nil {
				return fmt.Errorf("read learning %s to merge: %w", m.LearningID, err)
			}
			var sources []string
			if err := json.Unmarshal(raw, &sources); err != nil {
				return fmt.Errorf("read learning %s to merge: %w", m.LearningID, err)
			}
			for _, c := range m.Corrections {
				if !slices.Contains(sources, c) {
					sources = append(sources, c)
				}
			}
			b, err := json.Marshal(sources)
			if err != nil {
				return err
			}
			if _, err := tx.exec(ctx, `UPDATE learnings SET source_corrections = ?, confidence = ?, updated_at = ? WHERE id = ?`,
				string(b), m.Confidence, tx.now, m.LearningID); err != nil {
				return fmt.Errorf("merge into learning %s: %w", m.LearningID, err)
			}
			if !slices.Contains(ids, m.LearningID) {
				ids = append(ids, m.LearningID)
			}
		}
		for part := range chunkIDs(o.Processed) {
			args := append([]any{o.RunID}, anySlice(part)...)
			if _, err := tx.exec(ctx, `UPDATE corrections SET processed = TRUE, run_id = ? WHERE processed = FALSE AND id IN (`+
				placeholders(len(part))+`)`, args...); err != nil {
				return fmt.Errorf("mark corrections processed: %w", err)
			}
		}
		if ids == nil {
			ids = []string{}
		}
		b, err := json.Marshal(ids)
		if err != nil {
			return err
		}
		res, err := tx.exec(ctx, `UPDATE learning_runs SET status = ?, corrections = ?, learning_ids = ?, error = '', updated_at = ?
			WHERE id = ? AND status = ?`, learning.RunDone, len(o.Processed), string(b), tx.now, o.RunID, learning.RunRunning)
		if err != nil {
			return fmt.Errorf("finish synthesis: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return hone.Errorf(hone.ECONFLICT, "synthesis %s is no longer running", o.RunID)
		}
		return bumpGeneration(ctx, tx)
	})
}

// FailRun marks a run failed with the reason.
func (ls *LearningStore) FailRun(ctx context.Context, id, reason string) error {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	return ls.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE learning_runs SET status = ?, error = ?, updated_at = ? WHERE id = ? AND status IN (?, ?)`,
			learning.RunFailed, hone.CleanText(reason), tx.now, id, learning.RunQueued, learning.RunRunning)
		if err != nil {
			return err
		}
		return mustAffect(res, "queued or running synthesis", id)
	})
}

// RequeueStale takes up runs whose server stopped.
func (ls *LearningStore) RequeueStale(ctx context.Context, before time.Time, maxAttempts int) (int, error) {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	var n int64
	err := ls.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE learning_runs SET status = ?, error = ?, updated_at = ?
			WHERE status = ? AND heartbeat_at < ? AND attempts >= ?`, learning.RunFailed,
			"The synthesis was interrupted (the server stopped) and did not finish when it was run again; no correction was marked processed.",
			tx.now, learning.RunRunning, before.UTC(), maxAttempts)
		if err != nil {
			return fmt.Errorf("fail interrupted syntheses: %w", err)
		}
		failed, _ := res.RowsAffected()
		res, err = tx.exec(ctx, `UPDATE learning_runs SET status = ?, updated_at = ? WHERE status = ? AND heartbeat_at < ?`,
			learning.RunQueued, tx.now, learning.RunRunning, before.UTC())
		if err != nil {
			return fmt.Errorf("requeue interrupted syntheses: %w", err)
		}
		requeued, _ := res.RowsAffected()
		n = failed + requeued
		return nil
	})
	return int(n), err
}

// Run returns a run by id.
func (ls *LearningStore) Run(ctx context.Context, id string) (*learning.Run, error) {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	r, err := scanRun(ls.db.queryRow(ctx, `SELECT `+ls.runColumns()+` FROM learning_runs r WHERE r.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("synthesis run", id)
	} else if err != nil {
		return nil, dbError(fmt.Errorf("find synthesis run %q: %w", id, err))
	}
	return r, nil
}

// Runs lists runs newest first.
func (ls *LearningStore) Runs(ctx context.Context, limit int) ([]*learning.Run, error) {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	rows, err := ls.db.query(ctx, `SELECT `+ls.runColumns()+` FROM learning_runs r ORDER BY r.created_at DESC, r.id DESC LIMIT ?`, limit)
	return collect(rows, err, "synthesis runs", scanRun)
}

// Setting returns a setting's value, "" when never set.
func (ls *LearningStore) Setting(ctx context.Context, name string) (string, error) {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	var v string
	err := ls.db.queryRow(ctx, `SELECT value FROM learning_settings WHERE name = ?`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, dbError(err)
}

// SetSetting stores a setting.
func (ls *LearningStore) SetSetting(ctx context.Context, name, value string) error {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	return ls.db.update(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `INSERT INTO learning_settings (name, value) VALUES (?, ?)
			ON CONFLICT (name) DO UPDATE SET value = excluded.value`, name, value); err != nil {
			return fmt.Errorf("save setting %s: %w", name, err)
		}
		return bumpGeneration(ctx, tx)
	})
}

// Generation changes whenever learnings or settings change.
func (ls *LearningStore) Generation(ctx context.Context) (int64, error) {
	ctx, cancel := ls.db.limit(ctx)
	defer cancel()
	var g int64
	err := ls.db.queryRow(ctx, `SELECT generation FROM learning_state WHERE id = 1`).Scan(&g)
	return g, dbError(err)
}
