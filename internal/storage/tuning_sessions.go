package storage

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/tuning"
)

// sessionSort is a column the sessions list sorts by: its name, whether it
// is an aggregate of the session's turns or ratings, and whether it may be
// NULL (sorted last either way).
type sessionSort struct {
	expr     string
	agg      bool
	nullable bool
}

var sessionSorts = map[string]sessionSort{
	tuning.SortStarted: {expr: "session_start"}, tuning.SortEnded: {expr: "session_end", nullable: true},
	tuning.SortTester: {expr: "tester_id"}, tuning.SortVersion: {expr: "master_prompt_version"},
	tuning.SortTurns: {expr: "total_turns"}, tuning.SortNotes: {expr: "total_improvements"}, tuning.SortID: {expr: "id"},
	tuning.SortUp: {expr: "thumbs_up", agg: true}, tuning.SortDown: {expr: "thumbs_down", agg: true},
	tuning.SortObjective: {expr: "mean_objective", agg: true, nullable: true},
	tuning.SortOverall:   {expr: "mean_overall", agg: true, nullable: true},
}

// order is the ORDER BY of a sort over the table or derived table t.
func (o sessionSort) order(t string, desc bool) string {
	dir := " ASC"
	if desc {
		dir = " DESC"
	}
	by := " ORDER BY "
	if o.nullable {
		by += "(" + t + "." + o.expr + " IS NULL), "
	}
	return by + t + "." + o.expr + dir + ", " + t + ".id"
}

// pageAggregates are the list's figures of each session of a page p, read
// from the indexes of its turns and ratings: for the page's rows only.
const pageAggregates = `,
	(SELECT COUNT(*) FROM turn_feedback f WHERE f.session_id = p.id AND f.rating = 'up') AS thumbs_up,
	(SELECT COUNT(*) FROM turn_feedback f WHERE f.session_id = p.id AND f.rating = 'down') AS thumbs_down,
	(SELECT AVG(t.objective_score) FROM turns t WHERE t.session_id = p.id) AS mean_objective,
	(SELECT AVG(t.overall_score) FROM turns t WHERE t.session_id = p.id) AS mean_overall`

// allAggregates are the same figures of every session s, for a sort or
// filter on them: on SQLite from the indexes, session by session.
var allAggregates = strings.ReplaceAll(pageAggregates, "p.id", "s.id") + ` FROM sessions s`

// groupedAggregates are allAggregates aggregated once over the ratings and
// turns and joined, which PostgreSQL does faster.
const groupedAggregates = `, COALESCE(fa.up, 0) AS thumbs_up, COALESCE(fa.down, 0) AS thumbs_down,
	ta.objective AS mean_objective, ta.overall AS mean_overall FROM sessions s
	LEFT JOIN (SELECT session_id, SUM(CASE WHEN rating = 'up' THEN 1 ELSE 0 END) AS up,
		SUM(CASE WHEN rating = 'down' THEN 1 ELSE 0 END) AS down FROM turn_feedback GROUP BY session_id) fa ON fa.session_id = s.id
	LEFT JOIN (SELECT session_id, AVG(objective_score) AS objective, AVG(overall_score) AS overall FROM turns
		GROUP BY session_id) ta ON ta.session_id = s.id`

// likePattern is a LIKE pattern finding text anywhere, its wildcards
// escaped with \.
func likePattern(text string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(text) + "%"
}

// SearchSessions filters, sorts and pages the sessions in one query: the
// filters on sessions, their turns and ratings in the inner query; the
// score range and a sort by an aggregate over its rows.
func (ts *TuningStore) SearchSessions(ctx context.Context, q tuning.SessionSearch) ([]*tuning.SessionRow, error) {
	ctx, cancel := ts.db.limit(ctx)
	defer cancel()
	var where []string
	var args []any
	add := func(cond string, v ...any) { where, args = append(where, cond), append(args, v...) }
	if q.TesterID != "" {
		add("s.tester_id = ?", q.TesterID)
	}
	if q.PromptVersion != "" {
		add("s.master_prompt_version = ?", q.PromptVersion)
	}
	if !q.From.IsZero() {
		add("s.session_start >= ?", q.From.UTC())
	}
	if !q.Until.IsZero() {
		add("s.session_start < ?", q.Until.UTC())
	}
	if q.HasNotes {
		add("s.total_improvements > 0")
	}
	if q.HasThumbsDown {
		add("EXISTS (SELECT 1 FROM turn_feedback f WHERE f.session_id = s.id AND f.rating = 'down')")
	}
	if q.Text != "" {
		like := "LIKE" // SQLite's ignores the case of ASCII letters
		if ts.db.Dialect() == Postgres {
			like = "ILIKE"
		}
		p := likePattern(q.Text)
		add(`EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.id AND (t.user_message `+like+` ? ESCAPE '\'
			OR t.response `+like+` ? ESCAPE '\'))`, p, p)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	sort := sessionSorts[q.Sort]
	var query string
	if sort.agg || q.MinScore != nil || q.MaxScore != nil {
		aggregates := allAggregates
		if ts.db.Dialect() == Postgres {
			aggregates = groupedAggregates
		}
		query = `SELECT x.* FROM (SELECT ` + sessionColumns + aggregates + cond + `) x WHERE 1 = 1`
		if q.MinScore != nil {
			query, args = query+" AND x.mean_overall >= ?", append(args, *q.MinScore)
		}
		if q.MaxScore != nil {
			query, args = query+" AND x.mean_overall <= ?", append(args, *q.MaxScore)
		}
		query += sort.order("x", q.Desc) + ` LIMIT ? OFFSET ?`
	} else {
		query = `SELECT p.*` + pageAggregates + ` FROM (SELECT ` + sessionColumns + ` FROM sessions s` + cond +
			sort.order("s", q.Desc) + ` LIMIT ? OFFSET ?) p` + sort.order("p", q.Desc)
	}
	args = append(args, q.Limit, q.Offset)
	rows, err := ts.db.query(ctx, query, args...)
	if err != nil {
		return nil, dbError(fmt.Errorf("search sessions: %w", err))
	}
	defer rows.Close()
	out := []*tuning.SessionRow{}
	for rows.Next() {
		var r tuning.SessionRow
		var end sql.NullTime
		var meta []byte
		var objective, overall sql.NullFloat64
		if err := rows.Scan(&r.ID, &r.ConversationID, &r.Start, &end, &r.PromptVersion, &r.Branch, &r.TotalTurns,
			&r.TotalImprovements, &r.TesterID, &r.TesterEmail, &meta, &r.Up, &r.Down, &objective, &overall); err != nil {
			return nil, dbError(fmt.Errorf("search sessions: %w", err))
		}
		r.Start = r.Start.UTC()
		if end.Valid {
			t := end.Time.UTC()
			r.End = &t
		}
		r.Metadata = jsonOrEmpty(meta)
		if objective.Valid {
			r.MeanObjective = &objective.Float64
		}
		if overall.Valid {
			r.MeanOverall = &overall.Float64
		}
		out = append(out, &r)
	}
	if err := rows.Err(); err != nil {
		return nil, dbError(fmt.Errorf("search sessions: %w", err))
	}
	sessions := make([]*capture.Session, len(out))
	for i, r := range out {
		sessions[i] = &r.Session
	}
	return out, (&CaptureStore{ts.db}).withNames(ctx, sessions...)
}
