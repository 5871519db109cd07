package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/honehq/hone/internal/metrics"
	"github.com/honehq/hone/internal/scoring"
	"github.com/honehq/hone/internal/tuning"
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

// ScoreTurn merges human scores into a turn and recomputes its composites
// with set, in one transaction.
func (db *DB) ScoreTurn(ctx context.Context, ref scoring.TurnRef, scores map[string]int, set *metrics.Set) (*tuning.Turn, error) {
	lock := ""
	if db.dialect == Postgres {
		lock = " FOR UPDATE OF t"
	}
	var t *tuning.Turn
	err := db.update(ctx, func(tx *Tx) error {
		t = &tuning.Turn{}
		var row *sql.Row
		if ref.TurnID != "" {
			row = tx.queryRow(ctx, `SELECT t.id, t.session_id, t.turn_number, t.scores, t.objective_score
				FROM turns t WHERE t.id = ?`+lock, ref.TurnID)
		} else {
			row = tx.queryRow(ctx, `SELECT t.id, t.session_id, t.turn_number, t.scores, t.objective_score
				FROM conversations c JOIN turns t ON t.session_id = c.current_session_id
				WHERE c.id = ? ORDER BY t.turn_number DESC LIMIT 1`+lock, ref.ConversationID)
		}
		var old []byte
		var obj sql.NullFloat64
		err := row.Scan(&t.ID, &t.SessionID, &t.Number, &old, &obj)
		switch {
		case errors.Is(err, sql.ErrNoRows) && ref.TurnID != "":
			return notFound("turn", ref.TurnID)
		case errors.Is(err, sql.ErrNoRows):
			return tuning.ErrNoTurn
		case err != nil:
			return fmt.Errorf("find turn to score: %w", err)
		}
		if t.Scores, err = decodeScores(old); err != nil {
			return err
		}
		maps.Copy(t.Scores, scores)
		c := set.Composite(nullFloat(obj), t.Scores)
		t.ObjectiveScore, t.SubjectiveScore, t.OverallScore = c.Objective, c.Subjective, c.Overall
		b, err := json.Marshal(t.Scores)
		if err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `UPDATE turns SET scores = ?, subjective_score = ?, overall_score = ? WHERE id = ?`,
			string(b), t.SubjectiveScore, t.OverallScore, t.ID); err != nil {
			return fmt.Errorf("save scores: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Samples returns the scores of the turns of a session or of prompt versions.
func (db *DB) Samples(ctx context.Context, f scoring.SampleFilter) ([]scoring.Sample, error) {
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
		return nil, fmt.Errorf("read samples: %w", err)
	}
	defer rows.Close()
	out := []scoring.Sample{}
	for rows.Next() {
		var s scoring.Sample
		var at rawTime
		var m []byte
		var obj, subj, overall sql.NullFloat64
		if err := rows.Scan(&s.Version, &s.SessionID, &at, &s.TurnNumber, &m, &obj, &subj, &overall); err != nil {
			return nil, fmt.Errorf("read samples: %w", err)
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
	return out, rows.Err()
}

// VersionSummaries averages the composite scores per prompt version in SQL.
func (db *DB) VersionSummaries(ctx context.Context) ([]scoring.VersionSummary, error) {
	rows, err := db.query(ctx, `SELECT s.master_prompt_version, `+db.timeText("MIN(s.session_start)")+`,
		COUNT(DISTINCT s.id), COUNT(t.id), COUNT(t.objective_score), COUNT(t.subjective_score), COUNT(t.overall_score),
		AVG(t.objective_score), AVG(t.subjective_score), AVG(t.overall_score)
		FROM sessions s JOIN turns t ON t.session_id = s.id
		GROUP BY s.master_prompt_version ORDER BY MIN(s.session_start), s.master_prompt_version`)
	if err != nil {
		return nil, fmt.Errorf("summarise versions: %w", err)
	}
	defer rows.Close()
	out := []scoring.VersionSummary{}
	for rows.Next() {
		var v scoring.VersionSummary
		var at rawTime
		var obj, subj, overall sql.NullFloat64
		if err := rows.Scan(&v.Version, &at, &v.Sessions, &v.Turns, &v.NObjective, &v.NSubjective, &v.NOverall,
			&obj, &subj, &overall); err != nil {
			return nil, fmt.Errorf("summarise versions: %w", err)
		}
		if v.FirstStart, err = at.Time(); err != nil {
			return nil, err
		}
		v.Objective, v.Subjective, v.Overall = nullFloat(obj), nullFloat(subj), nullFloat(overall)
		out = append(out, v)
	}
	return out, rows.Err()
}

// DB is the store of turn scores.
var _ scoring.Store = (*DB)(nil)
