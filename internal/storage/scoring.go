package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/scoring"
)

// nullFloat returns f as a pointer, nil when NULL.
func nullFloat(f sql.NullFloat64) *float64 {
	if !f.Valid {
		return nil
	}
	v := f.Float64
	return &v
}

// decodeScores reads a turn's scores column; NULL is no scores.
func decodeScores(b []byte) (map[string]int, error) {
	out := map[string]int{}
	if len(b) == 0 {
		return out, nil
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("read turn scores: %w", err)
	}
	return out, nil
}

// ScoringStore keeps turn scores: the scoring.Store.
type ScoringStore struct{ db *DB }

// Scoring returns the store of turn scores.
func (db *DB) Scoring() *ScoringStore { return &ScoringStore{db} }

var _ scoring.Store = (*ScoringStore)(nil)

// TurnScores returns the scores of the turn ref names.
func (ss *ScoringStore) TurnScores(ctx context.Context, ref scoring.TurnRef) (*scoring.TurnScores, error) {
	ctx, cancel := ss.db.limit(ctx)
	defer cancel()
	var row *sql.Row
	if ref.TurnID != "" {
		row = ss.db.queryRow(ctx, `SELECT `+turnScoreColumns+` FROM turns t WHERE t.id = ?`, ref.TurnID)
	} else {
		row = ss.db.queryRow(ctx, `SELECT `+turnScoreColumns+` FROM conversations c JOIN turns t ON t.session_id = c.current_session_id
			WHERE c.id = ? ORDER BY t.turn_number DESC LIMIT 1`, ref.ConversationID)
	}
	ts, err := scanTurnScores(row)
	switch {
	case errors.Is(err, sql.ErrNoRows) && ref.TurnID != "":
		return nil, notFound("turn", ref.TurnID)
	case errors.Is(err, sql.ErrNoRows):
		return nil, capture.ErrNoTurn
	case err != nil:
		return nil, dbError(fmt.Errorf("find turn to score: %w", err))
	}
	return ts, nil
}

// turnScoreColumns are what scanTurnScores reads of turns t.
const turnScoreColumns = `t.id, t.session_id, t.turn_number, t.scores, t.objective_score, t.subjective_score, t.overall_score, t.scores_revision`

func scanTurnScores(row scanner) (*scoring.TurnScores, error) {
	var ts scoring.TurnScores
	var scores []byte
	var obj, subj, overall sql.NullFloat64
	if err := row.Scan(&ts.TurnID, &ts.SessionID, &ts.TurnNumber, &scores, &obj, &subj, &overall, &ts.Revision); err != nil {
		return nil, err
	}
	var err error
	if ts.Scores, err = decodeScores(scores); err != nil {
		return nil, err
	}
	ts.Objective, ts.Subjective, ts.Overall = nullFloat(obj), nullFloat(subj), nullFloat(overall)
	return &ts, nil
}

// LockTurns holds the scores of the turns until the transaction ends and
// returns them, in the order of ids: on PostgreSQL the rows are locked (FOR
// UPDATE, in id order); SQLite has one writer.
func (ss *ScoringStore) LockTurns(ctx context.Context, ids []string) ([]*scoring.TurnScores, error) {
	ctx, cancel := ss.db.limit(ctx)
	defer cancel()
	found := make(map[string]*scoring.TurnScores, len(ids))
	err := ss.db.update(ctx, func(tx *Tx) error {
		for part := range chunkIDs(ids) {
			q := `SELECT ` + turnScoreColumns + ` FROM turns t WHERE t.id IN (` + placeholders(len(part)) + `) ORDER BY t.id`
			if ss.db.dialect == Postgres {
				q += ` FOR UPDATE`
			}
			rows, err := tx.query(ctx, q, anySlice(part)...)
			list, err := collect(rows, err, "turn scores", scanTurnScores)
			if err != nil {
				return err
			}
			for _, ts := range list {
				found[ts.TurnID] = ts
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]*scoring.TurnScores, len(ids))
	for i, id := range ids {
		if out[i] = found[id]; out[i] == nil {
			return nil, notFound("turn", id)
		}
	}
	return out, nil
}

// SaveScores writes a turn's scores if no one changed them since they were read.
func (ss *ScoringStore) SaveScores(ctx context.Context, ts *scoring.TurnScores) error {
	ctx, cancel := ss.db.limit(ctx)
	defer cancel()
	b, err := json.Marshal(ts.Scores)
	if err != nil {
		return err
	}
	return ss.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE turns SET scores = ?, subjective_score = ?, overall_score = ?,
			scores_revision = scores_revision + 1 WHERE id = ? AND scores_revision = ?`,
			string(b), ts.Subjective, ts.Overall, ts.TurnID, ts.Revision)
		if err != nil {
			return fmt.Errorf("save scores: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return hone.Errorf(hone.ECONFLICT, "the scores of turn %s changed meanwhile", ts.TurnID)
		}
		return nil
	})
}

// Samples returns the scores of the turns of a session or of prompt versions.
func (ss *ScoringStore) Samples(ctx context.Context, f scoring.SampleFilter) ([]scoring.Sample, error) {
	ctx, cancel := context.WithTimeout(ctx, ss.db.StreamTimeout)
	defer cancel()
	db := ss.db
	var where []string
	var args []any
	if f.SessionID != "" {
		where = append(where, "s.id = ?")
		args = append(args, f.SessionID)
	}
	if len(f.Versions) > 0 {
		where = append(where, "s.master_prompt_version IN (?"+strings.Repeat(", ?", len(f.Versions)-1)+")")
		for _, v := range f.Versions {
			args = append(args, v)
		}
	}
	q := `SELECT s.master_prompt_version, s.id, ` + db.timeText("s.session_start") + `, t.turn_number,
		t.metrics, t.objective_score, t.subjective_score, t.overall_score
		FROM sessions s JOIN turns t ON t.session_id = s.id`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	rows, err := db.query(ctx, q+" ORDER BY s.session_start, s.id, t.turn_number", args...)
	if err != nil {
		return nil, dbError(fmt.Errorf("read samples: %w", err))
	}
	defer rows.Close()
	out := []scoring.Sample{}
	for rows.Next() {
		var s scoring.Sample
		var at rawTime
		var m []byte
		var obj, subj, overall sql.NullFloat64
		if err := rows.Scan(&s.Version, &s.SessionID, &at, &s.TurnNumber, &m, &obj, &subj, &overall); err != nil {
			return nil, dbError(fmt.Errorf("read samples: %w", err))
		}
		if s.SessionStart, err = at.Time(); err != nil {
			return nil, err
		}
		if len(m) > 0 {
			s.Metrics = append([]byte(nil), m...)
		}
		s.Objective, s.Subjective, s.Overall = nullFloat(obj), nullFloat(subj), nullFloat(overall)
		out = append(out, s)
	}
	return out, dbError(rows.Err())
}

// VersionSummaries averages the composite scores per prompt version in SQL.
func (ss *ScoringStore) VersionSummaries(ctx context.Context) ([]scoring.VersionSummary, error) {
	ctx, cancel := ss.db.limit(ctx)
	defer cancel()
	db := ss.db
	rows, err := db.query(ctx, `SELECT s.master_prompt_version, `+db.timeText("MIN(s.session_start)")+`,
		COUNT(DISTINCT s.id), COUNT(t.id), COUNT(t.objective_score), COUNT(t.subjective_score), COUNT(t.overall_score),
		AVG(t.objective_score), AVG(t.subjective_score), AVG(t.overall_score)
		FROM sessions s JOIN turns t ON t.session_id = s.id
		GROUP BY s.master_prompt_version ORDER BY MIN(s.session_start), s.master_prompt_version`)
	if err != nil {
		return nil, dbError(fmt.Errorf("summarise versions: %w", err))
	}
	defer rows.Close()
	out := []scoring.VersionSummary{}
	for rows.Next() {
		var v scoring.VersionSummary
		var at rawTime
		var obj, subj, overall sql.NullFloat64
		if err := rows.Scan(&v.Version, &at, &v.Sessions, &v.Turns, &v.NObjective, &v.NSubjective, &v.NOverall,
			&obj, &subj, &overall); err != nil {
			return nil, dbError(fmt.Errorf("summarise versions: %w", err))
		}
		if v.FirstStart, err = at.Time(); err != nil {
			return nil, err
		}
		v.Objective, v.Subjective, v.Overall = nullFloat(obj), nullFloat(subj), nullFloat(overall)
		out = append(out, v)
	}
	return out, dbError(rows.Err())
}
