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
	"github.com/honehq/hone/internal/score"
)

// ScoreStore keeps score configs and scores: the score.Store.
type ScoreStore struct{ db *DB }

// Scores returns the score capability's store.
func (db *DB) Scores() *ScoreStore { return &ScoreStore{db} }

var _ score.Store = (*ScoreStore)(nil)

func (ss *ScoreStore) configColumns() string {
	return `id, name, data_type, min_value, max_value, step, categories, description, archived, built_in, version, ` +
		ss.db.timeText("created_at") + `, ` + ss.db.timeText("updated_at")
}

func scanConfig(row scanner) (*score.Config, error) {
	var c score.Config
	var lo, hi, step sql.NullFloat64
	var cats []byte
	var created, updated rawTime
	if err := row.Scan(&c.ID, &c.Name, &c.DataType, &lo, &hi, &step, &cats, &c.Description, &c.Archived, &c.BuiltIn, &c.Version,
		&created, &updated); err != nil {
		return nil, err
	}
	c.Min, c.Max, c.Step = nullFloat(lo), nullFloat(hi), nullFloat(step)
	if c.DataType == score.Categorical {
		if err := json.Unmarshal(cats, &c.Categories); err != nil {
			return nil, fmt.Errorf("read the categories of config %s: %w", c.ID, err)
		}
	}
	var err error
	if c.CreatedAt, err = created.Time(); err != nil {
		return nil, err
	}
	c.UpdatedAt, err = updated.Time()
	return &c, err
}

// categoriesJSON is what the categories column keeps.
func categoriesJSON(c *score.Config) (string, error) {
	if len(c.Categories) == 0 {
		return "[]", nil
	}
	b, err := json.Marshal(c.Categories)
	return string(b), err
}

// nameConflict turns the unique violation of a config's name into the
// error that says so.
func nameConflict(err error, name string) error {
	if err != nil && hone.ErrorCode(dbError(err)) == hone.ECONFLICT {
		return score.NameTaken(name)
	}
	return err
}

// AddConfig stores a new config.
func (ss *ScoreStore) AddConfig(ctx context.Context, c *score.Config) error {
	ctx, cancel := ss.db.limit(ctx)
	defer cancel()
	cats, err := categoriesJSON(c)
	if err != nil {
		return err
	}
	return ss.db.update(ctx, func(tx *Tx) error {
		c.CreatedAt, c.UpdatedAt = tx.now, tx.now
		_, err := tx.exec(ctx, `INSERT INTO score_configs (id, name, data_type, min_value, max_value, step, categories, description,
			archived, built_in, version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			c.ID, c.Name, c.DataType, c.Min, c.Max, c.Step, cats, c.Description, c.Archived, c.BuiltIn, c.Version, tx.now, tx.now)
		return nameConflict(err, c.Name)
	})
}

// UpdateConfig stores c if the config is still at version from.
func (ss *ScoreStore) UpdateConfig(ctx context.Context, c *score.Config, from int) error {
	ctx, cancel := ss.db.limit(ctx)
	defer cancel()
	cats, err := categoriesJSON(c)
	if err != nil {
		return err
	}
	return ss.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE score_configs SET name = ?, description = ?, min_value = ?, max_value = ?, step = ?,
			categories = ?, archived = ?, version = version + 1, updated_at = ? WHERE id = ? AND version = ?`,
			c.Name, c.Description, c.Min, c.Max, c.Step, cats, c.Archived, tx.now, c.ID, from)
		if err != nil {
			return nameConflict(err, c.Name)
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return hone.Errorf(hone.ECONFLICT, "score config %s changed meanwhile: read it again", c.Name)
		}
		c.Version, c.UpdatedAt = from+1, tx.now
		return nil
	})
}

// Config returns a config by id.
func (ss *ScoreStore) Config(ctx context.Context, id string) (*score.Config, error) {
	ctx, cancel := ss.db.limit(ctx)
	defer cancel()
	c, err := scanConfig(ss.db.queryRow(ctx, `SELECT `+ss.configColumns()+` FROM score_configs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("score config", id)
	} else if err != nil {
		return nil, dbError(fmt.Errorf("find score config %q: %w", id, err))
	}
	return c, nil
}

// Configs returns the configs by name, then archived ones after those that
// are not.
func (ss *ScoreStore) Configs(ctx context.Context, archived bool) ([]*score.Config, error) {
	ctx, cancel := ss.db.limit(ctx)
	defer cancel()
	q := `SELECT ` + ss.configColumns() + ` FROM score_configs`
	if !archived {
		q += ` WHERE archived = FALSE`
	}
	rows, err := ss.db.query(ctx, q+` ORDER BY name, archived, created_at, id`)
	return collect(rows, err, "score configs", scanConfig)
}

// ConfigUsed reports whether any score has the config.
func (ss *ScoreStore) ConfigUsed(ctx context.Context, id string) (bool, error) {
	ctx, cancel := ss.db.limit(ctx)
	defer cancel()
	var n int
	err := ss.db.queryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM scores WHERE config_id = ? LIMIT 1) used`, id).Scan(&n)
	return n > 0, dbError(err)
}

func (ss *ScoreStore) scoreColumns() string {
	return `s.id, s.turn_id, s.workshop_id, s.trace_id, s.config_id, c.name, c.data_type, s.value_number, s.value_text,
		s.comment, s.source, s.author, s.prompt_version, s.fingerprint, ` + ss.db.timeText("s.created_at")
}

const scoreJoin = ` FROM scores s JOIN score_configs c ON c.id = s.config_id`

func scanScore(row scanner) (*score.Score, error) {
	var s score.Score
	var turn, ws, trace, text sql.NullString
	var number sql.NullFloat64
	var at rawTime
	if err := row.Scan(&s.ID, &turn, &ws, &trace, &s.ConfigID, &s.Config, &s.DataType, &number, &text, &s.Comment, &s.Source,
		&s.Author, &s.PromptVersion, &s.Fingerprint, &at); err != nil {
		return nil, err
	}
	s.TurnID, s.WorkshopID, s.TraceID = turn.String, ws.String, trace.String
	s.Number = nullFloat(number)
	if text.Valid {
		t := text.String
		s.Text = &t
	}
	s.Fill()
	var err error
	s.CreatedAt, err = at.Time()
	return &s, err
}

// orNull is s, or NULL when it is empty.
func orNull(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

// scoreRows is how many scores one INSERT statement of AddScores writes.
const scoreRows = 50

// AddScores adds the scores that are new in one transaction, many to a
// statement; the i-th is stored with the transaction's time plus i
// microseconds, so that the scores of one call keep their order. A score
// whose id is taken (before, or by an earlier score of the call) is not
// written: the stored one is returned instead.
func (ss *ScoreStore) AddScores(ctx context.Context, scores []*score.Score) ([]score.Added, error) {
	ctx, cancel := ss.db.limit(ctx)
	defer cancel()
	var out []score.Added
	err := ss.db.update(ctx, func(tx *Tx) error {
		out = make([]score.Added, len(scores))
		inserted := make(map[string]bool, len(scores))
		for from := 0; from < len(scores); from += scoreRows {
			part := scores[from:min(from+scoreRows, len(scores))]
			args := make([]any, 0, len(part)*13)
			for i, s := range part {
				var text sql.NullString
				if s.Text != nil {
					text = sql.NullString{String: *s.Text, Valid: true}
				}
				s.CreatedAt = tx.now.Add(time.Duration(from+i) * time.Microsecond)
				args = append(args, s.ID, orNull(s.TurnID), orNull(s.WorkshopID), orNull(s.TraceID), s.ConfigID, s.Number, text,
					s.Comment, s.Source, s.Author, s.PromptVersion, s.Fingerprint, s.CreatedAt)
			}
			rows, err := tx.query(ctx, `INSERT INTO scores (id, turn_id, workshop_id, trace_id, config_id, value_number, value_text,
				comment, source, author, prompt_version, fingerprint, created_at) VALUES `+
				strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), ", len(part)-1)+`(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (id) DO NOTHING RETURNING id`, args...)
			ids, err := collect(rows, err, "added scores", func(row scanner) (string, error) {
				var id string
				return id, row.Scan(&id)
			})
			if err != nil {
				return err
			}
			for _, id := range ids {
				inserted[id] = true
			}
		}
		var taken []string
		for i, s := range scores {
			if inserted[s.ID] {
				out[i] = score.Added{Score: s}
				delete(inserted, s.ID)
			} else {
				taken = append(taken, s.ID)
			}
		}
		stored := map[string]*score.Score{}
		for part := range chunkIDs(taken) {
			rows, err := tx.query(ctx, `SELECT `+ss.scoreColumns()+scoreJoin+` WHERE s.id IN (`+placeholders(len(part))+`)`, anySlice(part)...)
			list, err := collect(rows, err, "scores", scanScore)
			if err != nil {
				return err
			}
			for _, s := range list {
				stored[s.ID] = s
			}
		}
		for i, s := range scores {
			if out[i].Score == nil {
				old := stored[s.ID]
				if old == nil {
					return fmt.Errorf("score %q was neither added nor found", s.ID)
				}
				out[i] = score.Added{Score: old, Existed: true}
			}
		}
		return nil
	})
	return out, err
}

// Score returns a score by id.
func (ss *ScoreStore) Score(ctx context.Context, id string) (*score.Score, error) {
	ctx, cancel := ss.db.limit(ctx)
	defer cancel()
	s, err := scanScore(ss.db.queryRow(ctx, `SELECT `+ss.scoreColumns()+scoreJoin+` WHERE s.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("score", id)
	} else if err != nil {
		return nil, dbError(fmt.Errorf("find score %q: %w", id, err))
	}
	return s, nil
}

// DeleteScore removes a score and returns it.
func (ss *ScoreStore) DeleteScore(ctx context.Context, id string) (*score.Score, error) {
	ctx, cancel := ss.db.limit(ctx)
	defer cancel()
	var out *score.Score
	err := ss.db.update(ctx, func(tx *Tx) error {
		s, err := scanScore(tx.queryRow(ctx, `SELECT `+ss.scoreColumns()+scoreJoin+` WHERE s.id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("score", id)
		} else if err != nil {
			return fmt.Errorf("find score %q: %w", id, err)
		}
		if _, err := tx.exec(ctx, `DELETE FROM scores WHERE id = ?`, id); err != nil {
			return fmt.Errorf("delete score %q: %w", id, err)
		}
		out = s
		return nil
	})
	return out, err
}

// where is the WHERE clause of f, with its arguments.
func (ss *ScoreStore) where(f score.Filter) (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, v any) {
		conds, args = append(conds, cond), append(args, v)
	}
	if f.TurnID != "" {
		add("s.turn_id = ?", f.TurnID)
	}
	if f.SessionID != "" {
		add("s.turn_id IN (SELECT id FROM turns WHERE session_id = ?)", f.SessionID)
	}
	if f.WorkshopID != "" {
		add("s.workshop_id = ?", f.WorkshopID)
	}
	if f.TraceID != "" {
		add("s.trace_id = ?", f.TraceID)
	}
	if f.ConfigIDs != nil {
		conds = append(conds, "s.config_id IN ("+placeholders(len(f.ConfigIDs))+")")
		args = append(args, anySlice(f.ConfigIDs)...)
	}
	if f.Source != "" {
		add("s.source = ?", f.Source)
	}
	if f.Author != "" {
		add("s.author = ?", f.Author)
	}
	if f.PromptVersion != "" {
		add("s.prompt_version = ?", f.PromptVersion)
	}
	if !f.Since.IsZero() {
		add("s.created_at >= ?", f.Since.UTC())
	}
	if !f.Until.IsZero() {
		add("s.created_at < ?", f.Until.UTC())
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// Scores returns the scores f selects, newest first.
func (ss *ScoreStore) Scores(ctx context.Context, f score.Filter) ([]*score.Score, error) {
	if f.Nothing {
		return []*score.Score{}, nil
	}
	ctx, cancel := ss.db.limit(ctx)
	defer cancel()
	where, args := ss.where(f)
	q := `SELECT ` + ss.scoreColumns() + scoreJoin + where + ` ORDER BY s.created_at DESC, s.id DESC`
	if f.Limit > 0 {
		q, args = q+` LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)
	}
	rows, err := ss.db.query(ctx, q, args...)
	return collect(rows, err, "scores", scanScore)
}

// EachScore calls fn with every score f selects, oldest first.
func (ss *ScoreStore) EachScore(ctx context.Context, f score.Filter, fn func(*score.Score) error) error {
	if f.Nothing {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, ss.db.StreamTimeout)
	defer cancel()
	where, args := ss.where(f)
	rows, err := ss.db.query(ctx, `SELECT `+ss.scoreColumns()+scoreJoin+where+` ORDER BY s.created_at, s.id`, args...)
	if err != nil {
		return dbError(fmt.Errorf("read scores: %w", err))
	}
	defer rows.Close()
	for rows.Next() {
		s, err := scanScore(rows)
		if err != nil {
			return dbError(fmt.Errorf("read scores: %w", err))
		}
		if err := fn(s); err != nil {
			return err
		}
	}
	return dbError(rows.Err())
}

// Atomically runs fn in one write transaction that every store call with
// its context joins.
func (ss *ScoreStore) Atomically(ctx context.Context, fn func(ctx context.Context) error) error {
	return ss.db.Atomically(ctx, fn)
}

// Latest returns the latest score of each of the configs that judged t, by
// author when author is not nil.
func (ss *ScoreStore) Latest(ctx context.Context, t score.Target, configIDs []string, author *string) ([]*score.Score, error) {
	ctx, cancel := ss.db.limit(ctx)
	defer cancel()
	q := `SELECT ` + ss.scoreColumns() + scoreJoin
	var args []any
	if t.TurnID != "" {
		q, args = q+` WHERE s.turn_id = ?`, append(args, t.TurnID)
	} else {
		q, args = q+` WHERE s.workshop_id = ? AND s.trace_id = ?`, append(args, t.WorkshopID, t.TraceID)
	}
	q += ` AND s.config_id IN (` + placeholders(len(configIDs)) + `)`
	args = append(args, anySlice(configIDs)...)
	if author != nil {
		q, args = q+` AND s.author = ?`, append(args, *author)
	}
	rows, err := ss.db.query(ctx, q+` ORDER BY s.created_at DESC, s.id DESC`, args...)
	list, err := collect(rows, err, "latest scores", scanScore)
	if err != nil {
		return nil, err
	}
	out := []*score.Score{}
	seen := map[string]bool{}
	for _, s := range list {
		if !seen[s.ConfigID] {
			seen[s.ConfigID] = true
			out = append(out, s)
		}
	}
	return out, nil
}

// LatestOfTurns returns the latest score of each config of configIDs that
// judged each turn of turnIDs, by any author, reading the turns in parts:
// the newest time of each turn and config comes from the index alone, and
// only the scores of that time are read (of several at one time, the
// greatest id is the latest, as in Latest).
func (ss *ScoreStore) LatestOfTurns(ctx context.Context, turnIDs, configIDs []string) (map[string][]*score.Score, error) {
	ctx, cancel := ss.db.limit(ctx)
	defer cancel()
	out := map[string][]*score.Score{}
	for part := range chunkIDs(turnIDs) {
		in := `turn_id IN (` + placeholders(len(part)) + `) AND config_id IN (` + placeholders(len(configIDs)) + `)`
		q := `SELECT ` + ss.scoreColumns() + scoreJoin + ` JOIN (SELECT turn_id, config_id, MAX(created_at) AS at FROM scores
			WHERE ` + in + ` GROUP BY turn_id, config_id) m
			ON s.turn_id = m.turn_id AND s.config_id = m.config_id AND s.created_at = m.at`
		rows, err := ss.db.query(ctx, q, append(anySlice(part), anySlice(configIDs)...)...)
		list, err := collect(rows, err, "latest scores of turns", scanScore)
		if err != nil {
			return nil, err
		}
		latest := map[[2]string]*score.Score{}
		for _, s := range list {
			k := [2]string{s.TurnID, s.ConfigID}
			if prev := latest[k]; prev == nil || s.ID > prev.ID {
				latest[k] = s
			}
		}
		for _, s := range latest {
			out[s.TurnID] = append(out[s.TurnID], s)
		}
	}
	return out, nil
}
