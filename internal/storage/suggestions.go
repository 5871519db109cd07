package storage

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/honehq/hone/internal/suggestions"
)

// SuggestionStore keeps suggestion records and their rollups: the
// suggestions.Store.
type SuggestionStore struct{ db *DB }

// Suggestions returns the store of suggestion tracking.
func (db *DB) Suggestions() *SuggestionStore { return &SuggestionStore{db} }

var _ suggestions.Store = (*SuggestionStore)(nil)

// suggestionInsertColumns are the columns a record is stored in.
const suggestionInsertColumns = `id, ts, server, session, version, model, temperature, match_type, accepted_index, suggestions,
	cycle_count, time_to_action_ms, context_block_count, total_tokens, viewed_but_rejected, cycled_back, raw`

// insertRows is how many records one INSERT stores.
const insertRows = 32

// insertSuggestions is the INSERT of n records, answering the ids of those
// that were new.
func insertSuggestions(n int) string {
	row := "(" + placeholders(17) + ")"
	return `INSERT INTO suggestion_records (` + suggestionInsertColumns + `) VALUES ` + row + strings.Repeat(", "+row, n-1) +
		` ON CONFLICT (id) DO NOTHING RETURNING id`
}

var insertFull = insertSuggestions(insertRows)

// rollupRows is how many rollups one upsert statement counts.
const rollupRows = 64

// upsertRollups is the upsert of n rollups, which must have distinct keys.
func upsertRollups(n int) string {
	row := "(" + placeholders(7) + ")"
	return `INSERT INTO suggestion_rollups (kind, day, server, version, k1, k2, n) VALUES ` + row + strings.Repeat(", "+row, n-1) +
		` ON CONFLICT (kind, day, server, version, k1, k2) DO UPDATE SET n = suggestion_rollups.n + excluded.n`
}

var upsertFull = upsertRollups(rollupRows)

// Add stores the new records and their rollups in one transaction. Rows
// are locked in one order, whatever the order of recs: the records by id,
// then the rollups by key, so that concurrent calls wait for each other
// instead of deadlocking on PostgreSQL.
func (ss *SuggestionStore) Add(ctx context.Context, recs []*suggestions.Record, deltas func([]*suggestions.Record) []suggestions.Rollup) (int, error) {
	ctx, cancel := ss.db.limit(ctx)
	defer cancel()
	recs = slices.SortedStableFunc(slices.Values(recs), func(a, b *suggestions.Record) int { return strings.Compare(a.ID, b.ID) })
	var added []*suggestions.Record
	err := ss.db.update(ctx, func(tx *Tx) error {
		added = added[:0]
		args := make([]any, 0, 17*insertRows)
		for start := 0; start < len(recs); start += insertRows {
			part := recs[start:min(start+insertRows, len(recs))]
			args = args[:0]
			byID := make(map[string]*suggestions.Record, len(part))
			for _, r := range part {
				args = append(args, r.ID, r.TS.UTC(), r.Server, r.Session, r.Version, r.Model, r.Temperature, r.MatchType,
					r.AcceptedIndex, r.Suggestions, r.CycleCount, r.TimeToActionMS, r.ContextBlockCount, r.TotalTokens,
					r.ViewedButRejected, r.CycledBack, string(r.Raw))
				if _, dup := byID[r.ID]; !dup {
					byID[r.ID] = r
				}
			}
			q := insertFull
			if len(part) < insertRows {
				q = insertSuggestions(len(part))
			}
			rows, err := tx.query(ctx, q, args...)
			ids, err := collect(rows, err, "stored suggestion records", func(row scanner) (string, error) {
				var id string
				return id, row.Scan(&id)
			})
			if err != nil {
				return fmt.Errorf("store suggestion records: %w", err)
			}
			for _, id := range ids {
				if r := byID[id]; r != nil {
					added = append(added, r)
					delete(byID, id)
				}
			}
		}
		return ss.applyRollups(ctx, tx, deltas(added))
	})
	if err != nil {
		return 0, err
	}
	return len(added), nil
}

// applyRollups adds the rollups' counts, in the order of their keys (see
// Add), and removes the rollups that count nothing any more.
func (ss *SuggestionStore) applyRollups(ctx context.Context, tx *Tx, rows []suggestions.Rollup) error {
	rows = mergeRollups(rows)
	negative := false
	args := make([]any, 0, 7*rollupRows)
	for start := 0; start < len(rows); start += rollupRows {
		part := rows[start:min(start+rollupRows, len(rows))]
		args = args[:0]
		for _, r := range part {
			args = append(args, r.Kind, r.Day, r.Server, r.Version, r.K1, r.K2, r.N)
			negative = negative || r.N < 0
		}
		q := upsertFull
		if len(part) < rollupRows {
			q = upsertRollups(len(part))
		}
		if _, err := tx.exec(ctx, q, args...); err != nil {
			return fmt.Errorf("count suggestion records: %w", err)
		}
	}
	if negative {
		if _, err := tx.exec(ctx, `DELETE FROM suggestion_rollups WHERE n <= 0`); err != nil {
			return fmt.Errorf("count suggestion records: %w", err)
		}
	}
	return nil
}

// mergeRollups sums the rollups of one key, leaves out those that change
// nothing, and sorts them by key.
func mergeRollups(rows []suggestions.Rollup) []suggestions.Rollup {
	out := make([]suggestions.Rollup, 0, len(rows))
	for _, r := range rows {
		r.Day = r.Day.UTC()
		out = append(out, r)
	}
	slices.SortFunc(out, compareRollups)
	merged := out[:0]
	for _, r := range out {
		if n := len(merged); n > 0 && compareRollups(merged[n-1], r) == 0 {
			merged[n-1].N += r.N
			continue
		}
		merged = append(merged, r)
	}
	return slices.DeleteFunc(merged, func(r suggestions.Rollup) bool { return r.N == 0 })
}

// compareRollups orders rollups by their key.
func compareRollups(a, b suggestions.Rollup) int {
	return cmp.Or(strings.Compare(a.Kind, b.Kind), a.Day.Compare(b.Day), strings.Compare(a.Server, b.Server),
		strings.Compare(a.Version, b.Version), strings.Compare(a.K1, b.K1), strings.Compare(a.K2, b.K2))
}

// where is the SQL condition of a filter on the records, with its
// arguments.
func suggestionWhere(f suggestions.Filter, rollups bool) (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, arg any) {
		conds = append(conds, cond)
		args = append(args, arg)
	}
	if f.Server != "" {
		add("server = ?", f.Server)
	}
	if f.Version != "" {
		add("version = ?", f.Version)
	}
	column := "ts"
	since, until := f.Since, f.Until
	if rollups {
		column = "day"
		since = since.Truncate(suggestions.Day)
		if !until.IsZero() && !until.Equal(until.Truncate(suggestions.Day)) {
			until = until.Truncate(suggestions.Day).Add(suggestions.Day)
		}
	} else {
		if f.Session != "" {
			add("session = ?", f.Session)
		}
		if f.Model != "" {
			add("model = ?", f.Model)
		}
		if f.MatchType != "" {
			add("match_type = ?", f.MatchType)
		}
	}
	if !f.Since.IsZero() {
		add(column+" >= ?", since.UTC())
	}
	if !f.Until.IsZero() {
		add(column+" < ?", until.UTC())
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// Rollups sums the rollups a filter picks.
func (ss *SuggestionStore) Rollups(ctx context.Context, f suggestions.Filter) ([]suggestions.Rollup, error) {
	ctx, cancel := ss.db.limit(ctx)
	defer cancel()
	where, args := suggestionWhere(f, true)
	q := `SELECT kind, CASE WHEN kind = 'match' THEN ` + ss.db.timeText("day") + ` END,
		CASE WHEN kind = 'match' THEN version ELSE '' END, k1, k2, SUM(n) FROM suggestion_rollups` + where + `
		GROUP BY kind, CASE WHEN kind = 'match' THEN ` + ss.db.timeText("day") + ` END, CASE WHEN kind = 'match' THEN version ELSE '' END, k1, k2`
	rows, err := ss.db.query(ctx, q, args...)
	return collect(rows, err, "suggestion statistics", func(row scanner) (suggestions.Rollup, error) {
		var r suggestions.Rollup
		var day rawTime
		if err := row.Scan(&r.Kind, &day, &r.Version, &r.K1, &r.K2, &r.N); err != nil {
			return r, err
		}
		if day.valid {
			t, err := day.Time()
			if err != nil {
				return r, err
			}
			r.Day = t
		}
		return r, nil
	})
}

const suggestionColumns = `id, ` + `%s, server, session, version, model, temperature, match_type, accepted_index, suggestions,
	cycle_count, time_to_action_ms, context_block_count, total_tokens, viewed_but_rejected, cycled_back`

func (ss *SuggestionStore) columns() string {
	return fmt.Sprintf(suggestionColumns, ss.db.timeText("ts"))
}

func scanSuggestion(row scanner, extra ...any) (*suggestions.Record, error) {
	var r suggestions.Record
	var ts rawTime
	var temp sql.NullFloat64
	var accepted sql.NullInt64
	dest := append([]any{&r.ID, &ts, &r.Server, &r.Session, &r.Version, &r.Model, &temp, &r.MatchType, &accepted, &r.Suggestions,
		&r.CycleCount, &r.TimeToActionMS, &r.ContextBlockCount, &r.TotalTokens, &r.ViewedButRejected, &r.CycledBack}, extra...)
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	var err error
	if r.TS, err = ts.Time(); err != nil {
		return nil, err
	}
	if temp.Valid {
		r.Temperature = &temp.Float64
	}
	if accepted.Valid {
		i := int(accepted.Int64)
		r.AcceptedIndex = &i
	}
	return &r, nil
}

// Each calls fn with the records a filter picks, oldest first.
func (ss *SuggestionStore) Each(ctx context.Context, f suggestions.Filter, fn func(*suggestions.Record) error) error {
	where, args := suggestionWhere(f, false)
	q := `SELECT ` + ss.columns() + `, raw FROM suggestion_records` + where + ` ORDER BY ts, id`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	if f.Limit > 0 {
		// A list is one bounded read; an export streams for as long as it
		// takes.
		var cancel context.CancelFunc
		ctx, cancel = ss.db.limit(ctx)
		defer cancel()
	}
	rows, err := ss.db.query(ctx, q, args...)
	if err != nil {
		return dbError(fmt.Errorf("read suggestion records: %w", err))
	}
	defer rows.Close()
	for rows.Next() {
		var raw string
		r, err := scanSuggestion(rows, &raw)
		if err != nil {
			return dbError(fmt.Errorf("read suggestion records: %w", err))
		}
		r.Raw = []byte(raw)
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return dbError(fmt.Errorf("read suggestion records: %w", err))
	}
	return nil
}

// Forget removes a session's records and takes away their rollups.
func (ss *SuggestionStore) Forget(ctx context.Context, server, session string, deltas func([]*suggestions.Record) []suggestions.Rollup) (int, error) {
	ctx, cancel := ss.db.limit(ctx)
	defer cancel()
	where := ` WHERE session = ?`
	args := []any{session}
	if server != "" {
		where += ` AND server = ?`
		args = append(args, server)
	}
	var n int
	err := ss.db.update(ctx, func(tx *Tx) error {
		rows, err := tx.QueryContext(ctx, ss.db.q(`SELECT `+ss.columns()+` FROM suggestion_records`+where), args...)
		removed, err := collect(rows, err, "suggestion records", func(row scanner) (*suggestions.Record, error) { return scanSuggestion(row) })
		if err != nil {
			return err
		}
		if len(removed) == 0 {
			n = 0
			return nil
		}
		if _, err := tx.exec(ctx, `DELETE FROM suggestion_records`+where, args...); err != nil {
			return fmt.Errorf("forget suggestion records: %w", err)
		}
		n = len(removed)
		return ss.applyRollups(ctx, tx, deltas(removed))
	})
	return n, err
}
