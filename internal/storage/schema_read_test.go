package storage_test

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// dbSchema is what a migrated database holds, read from its catalog, in a form
// the two dialects can be compared in.
type dbSchema map[string]*schemaTable

// schemaTable is one table: columns by name, its keys and constraints as sorted
// descriptions, indexes by name, and how many rows the migrations left in it.
type schemaTable struct {
	columns     map[string]schemaColumn
	primaryKey  string
	uniques     []string
	foreignKeys []string
	checks      []string
	indexes     map[string]schemaIndex
	rows        int
}

// schemaColumn is a column as declared: its type as the database names it, whether
// it refuses NULL, and its default as written ("" when it has none).
type schemaColumn struct {
	typ     string
	notNull bool
	dflt    string
}

// schemaIndex is a CREATE INDEX of its own (keys and UNIQUE constraints are
// compared as constraints): its key columns, uniqueness and predicate.
type schemaIndex struct {
	columns string
	unique  bool
	where   string
}

func (ix schemaIndex) String() string {
	s := ix.columns
	if ix.unique {
		s = "UNIQUE " + s
	}
	if ix.where != "" {
		s += " WHERE " + ix.where
	}
	return s
}

// ignoredTable is the bookkeeping table of goose, which creates it per dialect.
const ignoredTable = "goose_db_version"

// readSQLiteSchema reads the schema of a SQLite database from sqlite_master
// and the table-valued pragmas.
func readSQLiteSchema(ctx context.Context, db *sql.DB) (dbSchema, error) {
	type ddl struct{ name, sql string }
	tables, err := schemaQuery(ctx, db, func(r *sql.Rows) (ddl, error) {
		var d ddl
		return d, r.Scan(&d.name, &d.sql)
	}, `SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' AND name <> ?`, ignoredTable)
	if err != nil {
		return nil, err
	}
	s := dbSchema{}
	for _, d := range tables {
		t := &schemaTable{columns: map[string]schemaColumn{}, indexes: map[string]schemaIndex{}}
		s[d.name] = t
		type col struct {
			name, typ string
			notNull   bool
			dflt      sql.NullString
			pk        int
		}
		cols, err := schemaQuery(ctx, db, func(r *sql.Rows) (col, error) {
			var c col
			return c, r.Scan(&c.name, &c.typ, &c.notNull, &c.dflt, &c.pk)
		}, `SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)`, d.name)
		if err != nil {
			return nil, err
		}
		var withoutRowid bool
		if err := db.QueryRowContext(ctx, `SELECT wr FROM pragma_table_list WHERE name = ? AND schema = 'main'`, d.name).Scan(&withoutRowid); err != nil {
			return nil, fmt.Errorf("table %s: %w", d.name, err)
		}
		var pk []col
		for _, c := range cols {
			if c.pk > 0 {
				pk = append(pk, c)
			}
		}
		for _, c := range cols {
			typ := strings.ToUpper(c.typ)
			// A primary key refuses NULL on a WITHOUT ROWID table and as the
			// INTEGER PRIMARY KEY (NULL there picks the next rowid); any
			// other primary-key column of a rowid table takes NULL unless
			// declared NOT NULL, a quirk SQLite keeps for compatibility.
			keyNotNull := c.pk > 0 && (withoutRowid || len(pk) == 1 && typ == "INTEGER")
			t.columns[c.name] = schemaColumn{typ: typ, notNull: c.notNull || keyNotNull, dflt: c.dflt.String}
		}
		slices.SortFunc(pk, func(a, b col) int { return a.pk - b.pk })
		if len(pk) > 0 {
			names := make([]string, len(pk))
			for i, c := range pk {
				names[i] = c.name
			}
			t.primaryKey = columnList(names)
		}
		if t.checks, err = sqliteChecks(d.sql); err != nil {
			return nil, fmt.Errorf("table %s: %w", d.name, err)
		}
		if err := readSQLiteIndexes(ctx, db, d.name, t); err != nil {
			return nil, err
		}
		if t.foreignKeys, err = readSQLiteForeignKeys(ctx, db, d.name); err != nil {
			return nil, err
		}
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM "`+d.name+`"`).Scan(&t.rows); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func readSQLiteIndexes(ctx context.Context, db *sql.DB, name string, t *schemaTable) error {
	type entry struct {
		name, origin string
		unique       bool
	}
	list, err := schemaQuery(ctx, db, func(r *sql.Rows) (entry, error) {
		var e entry
		return e, r.Scan(&e.name, &e.unique, &e.origin)
	}, `SELECT name, "unique", origin FROM pragma_index_list(?)`, name)
	if err != nil {
		return err
	}
	for _, e := range list {
		if e.origin == "pk" {
			continue
		}
		type key struct {
			name sql.NullString
			desc bool
		}
		keys, err := schemaQuery(ctx, db, func(r *sql.Rows) (key, error) {
			var k key
			return k, r.Scan(&k.name, &k.desc)
		}, `SELECT name, "desc" FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno`, e.name)
		if err != nil {
			return err
		}
		cols := make([]string, len(keys))
		for i, k := range keys {
			cols[i] = k.name.String
			if !k.name.Valid {
				cols[i] = "(expression)"
			}
			if k.desc {
				cols[i] += " DESC"
			}
		}
		if e.origin == "u" {
			t.uniques = append(t.uniques, columnList(cols))
			continue
		}
		var ddl string
		if err := db.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`, e.name).Scan(&ddl); err != nil {
			return fmt.Errorf("index %s: %w", e.name, err)
		}
		var where string
		if m := sqliteIndexWhere.FindStringSubmatch(stripComments(ddl)); m != nil {
			where = normalizeExpr(m[1])
		}
		t.indexes[e.name] = schemaIndex{columns: columnList(cols), unique: e.unique, where: where}
	}
	slices.Sort(t.uniques)
	return nil
}

// sqliteIndexWhere finds the predicate of a partial index after its key list.
var sqliteIndexWhere = regexp.MustCompile(`(?is)\)\s*WHERE\s+(.*?)\s*;?\s*$`)

func readSQLiteForeignKeys(ctx context.Context, db *sql.DB, name string) ([]string, error) {
	type ref struct {
		id             int
		parent, from   string
		to             sql.NullString
		update, delete string
	}
	refs, err := schemaQuery(ctx, db, func(r *sql.Rows) (ref, error) {
		var f ref
		return f, r.Scan(&f.id, &f.parent, &f.from, &f.to, &f.update, &f.delete)
	}, `SELECT id, "table", "from", "to", on_update, on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq`, name)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := 0; i < len(refs); {
		j := i
		var from, to []string
		for ; j < len(refs) && refs[j].id == refs[i].id; j++ {
			from = append(from, refs[j].from)
			to = append(to, refs[j].to.String)
		}
		f := refs[i]
		target := columnList(to)
		if !f.to.Valid {
			// REFERENCES parent without columns names the parent's primary key.
			pk, err := schemaQuery(ctx, db, func(r *sql.Rows) (string, error) {
				var c string
				return c, r.Scan(&c)
			}, `SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk`, f.parent)
			if err != nil {
				return nil, err
			}
			target = columnList(pk)
		}
		out = append(out, foreignKeyLine(columnList(from), f.parent, target, f.delete, f.update))
		i = j
	}
	slices.Sort(out)
	return out, nil
}

// sqliteCheck finds where a CHECK constraint begins in a CREATE TABLE.
var sqliteCheck = regexp.MustCompile(`(?i)\bCHECK\s*\(`)

// sqliteChecks returns the CHECK constraints of a CREATE TABLE statement,
// column constraints and table constraints alike, normalized.
func sqliteChecks(ddl string) ([]string, error) {
	ddl = stripComments(ddl)
	var out []string
	for _, loc := range sqliteCheck.FindAllStringIndex(ddl, -1) {
		open := loc[1] - 1
		end, err := closingParen(ddl, open)
		if err != nil {
			return nil, err
		}
		out = append(out, normalizeExpr(ddl[open+1:end]))
	}
	slices.Sort(out)
	return out, nil
}

// stripComments removes the -- and /* */ comments SQLite keeps in the
// statements of sqlite_master.
func stripComments(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\'' || s[i] == '"' || s[i] == '`':
			end := strings.IndexByte(s[i+1:], s[i])
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			b.WriteString(s[i : i+end+2])
			i += end + 1
		case strings.HasPrefix(s[i:], "--"):
			end := strings.IndexByte(s[i:], '\n')
			if end < 0 {
				return b.String()
			}
			i += end - 1
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += end + 3
			b.WriteByte(' ')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// closingParen returns the index of the parenthesis that closes the one at
// open, skipping quoted strings and identifiers.
func closingParen(s string, open int) (int, error) {
	depth := 0
	for i := open; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"', '`':
			end := strings.IndexByte(s[i+1:], c)
			if end < 0 {
				return 0, fmt.Errorf("unterminated %c in %q", c, s[open:])
			}
			i += end + 1
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i, nil
			}
		}
	}
	return 0, fmt.Errorf("unbalanced parentheses in %q", s[open:])
}

// readPostgresSchema reads the schema of the PostgreSQL schema the
// connection's search_path names, from pg_catalog.
func readPostgresSchema(ctx context.Context, db *sql.DB) (dbSchema, error) {
	names, err := schemaQuery(ctx, db, func(r *sql.Rows) (string, error) {
		var n string
		return n, r.Scan(&n)
	}, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname <> $1`, ignoredTable)
	if err != nil {
		return nil, err
	}
	s := dbSchema{}
	for _, n := range names {
		s[n] = &schemaTable{columns: map[string]schemaColumn{}, indexes: map[string]schemaIndex{}}
	}
	type col struct {
		table, name, typ string
		notNull          bool
		dflt             sql.NullString
	}
	cols, err := schemaQuery(ctx, db, func(r *sql.Rows) (col, error) {
		var c col
		return c, r.Scan(&c.table, &c.name, &c.typ, &c.notNull, &c.dflt)
	}, `SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid)
	    FROM pg_attribute a
	    JOIN pg_class c ON c.oid = a.attrelid
	    JOIN pg_namespace n ON n.oid = c.relnamespace
	    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
	    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped`)
	if err != nil {
		return nil, err
	}
	for _, c := range cols {
		if t := s[c.table]; t != nil {
			t.columns[c.name] = schemaColumn{typ: c.typ, notNull: c.notNull, dflt: c.dflt.String}
		}
	}
	type constraint struct {
		table, kind, cols, def string
		parent, parentCols     sql.NullString
		delete, update         string
	}
	cons, err := schemaQuery(ctx, db, func(r *sql.Rows) (constraint, error) {
		var c constraint
		return c, r.Scan(&c.table, &c.kind, &c.cols, &c.def, &c.parent, &c.parentCols, &c.delete, &c.update)
	}, `SELECT c.relname, con.contype::text,
	           array_to_string(ARRAY(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
	               JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.ord), ', '),
	           pg_get_constraintdef(con.oid),
	           p.relname,
	           array_to_string(ARRAY(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, ord)
	               JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum ORDER BY k.ord), ', '),
	           con.confdeltype::text, con.confupdtype::text
	    FROM pg_constraint con
	    JOIN pg_class c ON c.oid = con.conrelid
	    JOIN pg_namespace n ON n.oid = c.relnamespace
	    LEFT JOIN pg_class p ON p.oid = con.confrelid
	    WHERE n.nspname = current_schema() AND con.contype IN ('p', 'u', 'f', 'c')`)
	if err != nil {
		return nil, err
	}
	for _, c := range cons {
		t := s[c.table]
		if t == nil {
			continue
		}
		switch c.kind {
		case "p":
			t.primaryKey = "(" + c.cols + ")"
		case "u":
			t.uniques = append(t.uniques, "("+c.cols+")")
		case "f":
			t.foreignKeys = append(t.foreignKeys, foreignKeyLine("("+c.cols+")", c.parent.String, "("+c.parentCols.String+")",
				postgresAction[c.delete], postgresAction[c.update]))
		case "c":
			def := strings.TrimSuffix(c.def, " NOT VALID")
			t.checks = append(t.checks, normalizeExpr(strings.TrimPrefix(def, "CHECK ")))
		}
	}
	type idx struct {
		table, name, method, cols string
		unique                    bool
		where                     sql.NullString
	}
	idxs, err := schemaQuery(ctx, db, func(r *sql.Rows) (idx, error) {
		var i idx
		return i, r.Scan(&i.table, &i.name, &i.method, &i.cols, &i.unique, &i.where)
	}, `SELECT t.relname, i.relname, am.amname,
	           (SELECT string_agg(pg_get_indexdef(x.indexrelid, k, true) ||
	                   CASE WHEN x.indoption[k - 1] & 1 = 1 THEN ' DESC' ELSE '' END, ', ' ORDER BY k)
	              FROM generate_series(1, x.indnkeyatts) AS k),
	           x.indisunique, pg_get_expr(x.indpred, x.indrelid)
	    FROM pg_index x
	    JOIN pg_class i ON i.oid = x.indexrelid
	    JOIN pg_class t ON t.oid = x.indrelid
	    JOIN pg_namespace n ON n.oid = t.relnamespace
	    JOIN pg_am am ON am.oid = i.relam
	    WHERE n.nspname = current_schema()
	      AND NOT EXISTS (SELECT 1 FROM pg_constraint con
	                      WHERE con.conindid = x.indexrelid AND con.conrelid = x.indrelid AND con.contype IN ('p', 'u', 'x'))`)
	if err != nil {
		return nil, err
	}
	for _, i := range idxs {
		t := s[i.table]
		if t == nil {
			continue
		}
		cols := "(" + i.cols + ")"
		if i.method != "btree" {
			cols = "USING " + i.method + " " + cols
		}
		ix := schemaIndex{columns: cols, unique: i.unique}
		if i.where.Valid {
			ix.where = normalizeExpr(i.where.String)
		}
		t.indexes[i.name] = ix
	}
	for n, t := range s {
		slices.Sort(t.uniques)
		slices.Sort(t.foreignKeys)
		slices.Sort(t.checks)
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM "`+n+`"`).Scan(&t.rows); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// postgresAction names pg_constraint's confdeltype and confupdtype codes as
// SQLite's pragma_foreign_key_list does.
var postgresAction = map[string]string{
	"a": "NO ACTION",
	"r": "RESTRICT",
	"c": "CASCADE",
	"n": "SET NULL",
	"d": "SET DEFAULT",
}

func foreignKeyLine(from, parent, to, onDelete, onUpdate string) string {
	return fmt.Sprintf("%s REFERENCES %s %s ON DELETE %s ON UPDATE %s", from, parent, to, onDelete, onUpdate)
}

func columnList(cols []string) string { return "(" + strings.Join(cols, ", ") + ")" }

func schemaQuery[T any](ctx context.Context, db *sql.DB, scan func(*sql.Rows) (T, error), query string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", strings.Join(strings.Fields(query), " "), err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
