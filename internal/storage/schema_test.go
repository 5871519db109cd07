package storage_test

import (
	"context"
	"database/sql"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/pressly/goose/v3"
)

// The two migration trees, migrations/sqlite and migrations/postgres, hold
// the same changes, one file per change per dialect under the same name.
// TestMigrationsGiveBothDatabasesOneSchema holds them to one schema; this
// file is the one place where how the dialects may differ is written down:
// sqliteTypes for column types, dialectDifferences for everything else.

// sqliteTypes maps each PostgreSQL column type the migrations use, as
// format_type prints it, to the SQLite declared types that stand for it. A
// migration that uses a type not listed here fails the schema test until the
// type is added. Types that map to one SQLite type (text, json and jsonb)
// cannot be told apart: a change among them in PostgreSQL alone is not a
// difference.
var sqliteTypes = map[string][]string{
	"text": {"TEXT"},
	// JSON is kept as text on SQLite; PostgreSQL's json keeps the text (and
	// the order of keys) as written, jsonb a parsed copy.
	"json":  {"TEXT"},
	"jsonb": {"TEXT"},
	// SQLite keeps a time as text, in UTC to the microsecond (DB.now, timestamp.go).
	"timestamp with time zone": {"TIMESTAMP"},
	"double precision":         {"REAL"},
	"integer":                  {"INTEGER"},
	"bigint":                   {"INTEGER"},
	// SQLite stores a boolean as 0 or 1; 00006_workshops declared its
	// booleans INTEGER, later migrations BOOLEAN.
	"boolean": {"BOOLEAN", "INTEGER"},
}

// dialectDifferences are the differences between the two schemas that are
// meant or inherited, each as compareSchemas words it, with the reason. Any
// other difference fails the schema test, and so does a line here that no
// longer occurs.
var dialectDifferences = func() map[string]string {
	d := map[string]string{
		// turns and improvements are WITHOUT ROWID tables on SQLite,
		// clustered on the key the reads follow (a session's turns in
		// order, a turn's notes in order): the key PostgreSQL declares
		// unique is SQLite's primary key, and PostgreSQL's primary key is
		// a UNIQUE constraint there.
		"turns: primary key: sqlite (session_id, turn_number) vs postgres (id)":        "SQLite clusters turns by session and number",
		"turns: unique (id): only in sqlite":                                           "SQLite clusters turns by session and number",
		"turns: unique (session_id, turn_number): only in postgres":                    "SQLite clusters turns by session and number",
		"improvements: primary key: sqlite (turn_id, created_at, id) vs postgres (id)": "SQLite clusters notes by turn and time",
		"improvements: unique (id): only in sqlite":                                    "SQLite clusters notes by turn and time",
		// On SQLite the clustering key serves the reads this index serves
		// on PostgreSQL.
		"improvements: index improvements_turn (turn_id, created_at): only in postgres": "SQLite clusters notes by turn and time",
	}
	// These SQLite tables, from migrations 00001 to 00010, declare a TEXT
	// PRIMARY KEY without NOT NULL, which SQLite lets take NULL; hone
	// writes no key it did not make. A new table declares its key NOT
	// NULL on SQLite.
	for _, key := range []string{
		"sessions.id", "conversations.id", "llm_calls.id", "secrets.name", "signin_links.token_hash",
		"workshops.id", "workshop_members.id", "discovery_feedback.id", "discovery_analysis.id",
		"draft_rubric_items.id", "turn_feedback.id", "corrections.id", "learnings.id",
		"learning_runs.id", "learning_settings.name", "alerts.id", "alert_types.type", "suggestion_records.id",
	} {
		d[key+": nullability: sqlite NULL vs postgres NOT NULL"] = "released SQLite migrations left the key nullable"
	}
	return d
}()

// Every migration exists in both dialects under one name.
func TestMigrationFilesPairUp(t *testing.T) {
	diffs, err := pairMigrations(os.DirFS("migrations/sqlite"), os.DirFS("migrations/postgres"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Errorf("migrations: %s", d)
	}
}

func TestPairMigrationsNamesWhatIsMissing(t *testing.T) {
	up := &fstest.MapFile{Data: []byte("-- +goose Up\nSELECT 1;\n")}
	lite := fstest.MapFS{"00001_a.sql": up, "00002_b.sql": up, "00003-c.sql": up}
	pg := fstest.MapFS{"00001_a.sql": up, "00002_bb.sql": up, "00003-c.sql": up}
	diffs, err := pairMigrations(lite, pg)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"00002_b.sql: only in sqlite",
		"00002_bb.sql: only in postgres",
		"00003-c.sql: not named NNNNN_words.sql",
	}
	if !slices.Equal(diffs, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(diffs, "\n"), strings.Join(want, "\n"))
	}
}

// Every column type SQLite gets is one sqliteTypes maps a PostgreSQL type to:
// the part of the schema test that needs no PostgreSQL.
func TestSQLiteColumnTypesAreMapped(t *testing.T) {
	s := readSchemaOf(t, storage.SQLite, migratedConn(t, storage.SQLite, nil))
	if s["turns"] == nil || s["turns"].primaryKey != "(session_id, turn_number)" {
		t.Fatalf("turns not read as migrated: %+v", s["turns"])
	}
	var known []string
	for _, ts := range sqliteTypes {
		known = append(known, ts...)
	}
	for _, name := range sortedUnion(s, s) {
		for _, col := range sortedUnion(s[name].columns, s[name].columns) {
			if typ := s[name].columns[col].typ; !slices.Contains(known, typ) {
				t.Errorf("%s.%s: sqlite type %s is not in sqliteTypes", name, col, typ)
			}
		}
	}
}

// Migrating a fresh SQLite database and a fresh PostgreSQL one gives the same
// tables, columns (types mapped through sqliteTypes), nullability, defaults,
// primary keys, unique constraints, foreign keys with their actions, checks,
// indexes with their predicates, and rows, but for dialectDifferences.
func TestMigrationsGiveBothDatabasesOneSchema(t *testing.T) {
	pg := readSchemaOf(t, storage.Postgres, migratedConn(t, storage.Postgres, nil))
	lite := readSchemaOf(t, storage.SQLite, migratedConn(t, storage.SQLite, nil))
	for _, d := range unexplained(compareSchemas(lite, pg)) {
		t.Error(d)
	}
}

// unexplained returns the differences dialectDifferences does not list, and
// a line for each listed one that did not occur.
func unexplained(diffs []string) []string {
	var out []string
	for _, d := range diffs {
		if _, meant := dialectDifferences[d]; !meant {
			out = append(out, d)
		}
	}
	for _, d := range sortedUnion(dialectDifferences, dialectDifferences) {
		if !slices.Contains(diffs, d) {
			out = append(out, "dialectDifferences lists a difference that no longer occurs: "+d)
		}
	}
	return out
}

func TestUnexplainedNamesNewAndStaleDifferences(t *testing.T) {
	meant := "turns: unique (id): only in sqlite"
	got := unexplained([]string{meant, "turns.drift: column only in sqlite"})
	if !slices.Contains(got, "turns.drift: column only in sqlite") {
		t.Errorf("a difference not listed is not reported: %q", got)
	}
	if slices.Contains(got, meant) {
		t.Errorf("a listed difference is reported: %q", got)
	}
	if !slices.Contains(got, "dialectDifferences lists a difference that no longer occurs: turns: primary key: sqlite (session_id, turn_number) vs postgres (id)") {
		t.Errorf("a listed difference that did not occur is not reported: %q", got)
	}
}

// A change made in one dialect only is found and named, whatever it is; two
// tables whose columns are declared in another order are the same table.
func TestSchemaComparisonFindsDrift(t *testing.T) {
	liteOnly := `-- +goose Up
ALTER TABLE turns ADD COLUMN drift TEXT;
CREATE INDEX llm_calls_model ON llm_calls (model);
CREATE TABLE drift_order (a TEXT NOT NULL CHECK (a IN ('x', 'y')), b INTEGER DEFAULT 1, c BOOLEAN NOT NULL DEFAULT FALSE);
INSERT INTO learning_settings (name, value) VALUES ('drift', 'x');
`
	pgOnly := `-- +goose Up
ALTER TABLE alerts ALTER COLUMN sent_at TYPE TEXT;
ALTER TABLE alert_types ALTER COLUMN reason DROP NOT NULL;
ALTER TABLE alerts ADD CONSTRAINT alerts_type_known CHECK (type IN ('a', 'b'));
ALTER TABLE sessions ALTER COLUMN total_turns SET DEFAULT 1;
CREATE TABLE drift_order (c BOOLEAN NOT NULL DEFAULT FALSE, b INTEGER DEFAULT 1, a TEXT NOT NULL CHECK (a IN ('x', 'y')));
DROP INDEX sessions_start;
CREATE INDEX sessions_start ON sessions (session_start);
CREATE UNIQUE INDEX turns_fingerprint ON turns (fingerprint) WHERE fingerprint IS NOT NULL;
ALTER TABLE conversations DROP CONSTRAINT conversations_current_session_id_fkey,
    ADD FOREIGN KEY (current_session_id) REFERENCES sessions (id) ON DELETE CASCADE;
`
	pg := readSchemaOf(t, storage.Postgres, migratedConn(t, storage.Postgres, migrationsPlus(t, "postgres", "90001_drift.sql", pgOnly)))
	lite := readSchemaOf(t, storage.SQLite, migratedConn(t, storage.SQLite, migrationsPlus(t, "sqlite", "90001_drift.sql", liteOnly)))
	got := unexplained(compareSchemas(lite, pg))
	want := []string{
		"alert_types.reason: nullability: sqlite NOT NULL vs postgres NULL",
		"alerts.sent_at: type: sqlite TIMESTAMP vs postgres text (maps to TEXT)",
		"alerts: check type in 'a', 'b': only in postgres",
		"conversations: foreign key (current_session_id): sqlite REFERENCES sessions (id) ON DELETE SET NULL ON UPDATE NO ACTION vs postgres REFERENCES sessions (id) ON DELETE CASCADE ON UPDATE NO ACTION",
		"learning_settings: rows after migrating: sqlite 1 vs postgres 0",
		"llm_calls: index llm_calls_model (model): only in sqlite",
		"sessions.total_turns: default: sqlite 0 vs postgres 1",
		"sessions: index sessions_start: sqlite (session_start DESC) vs postgres (session_start)",
		"turns.drift: column only in sqlite",
		"turns: index turns_fingerprint UNIQUE (fingerprint) WHERE fingerprint is not null: only in postgres",
	}
	if !slices.Equal(got, want) {
		t.Errorf("differences found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestNormalizedExpressionsMatchAcrossDialects(t *testing.T) {
	for _, tt := range []struct{ sqlite, postgres string }{
		{"id = 1", "((id = 1))"},
		{"kind IN ('a', 'b')", "((kind = ANY (ARRAY['a'::text, 'b'::text])))"},
		{"kind NOT IN ('a','b')", "((kind <> ALL (ARRAY['a'::text, 'b'::text])))"},
		{"idempotency_key IS NOT NULL", "(idempotency_key IS NOT NULL)"},
		{"length(name)>0 AND n != 2", "((length(name) > 0) AND (n <> 2))"},
		{"label = 'Mixed Case'", "((label = 'Mixed Case'::text))"},
	} {
		if l, p := normalizeExpr(tt.sqlite), normalizeExpr(tt.postgres); l != p {
			t.Errorf("sqlite %q → %q, postgres %q → %q", tt.sqlite, l, tt.postgres, p)
		}
	}
	if l, p := normalizeExpr("label = 'a'"), normalizeExpr("(label = 'A'::text)"); l == p {
		t.Errorf("string literals of another case compare equal: %q", l)
	}
	for _, tt := range []struct{ sqlite, postgres, typ string }{
		{"''", "''::text", "text"},
		{"'{}'", "'{}'::jsonb", "jsonb"},
		{"0", "0", "bigint"},
		{"-1", "'-1'::integer", "integer"},
		{"FALSE", "false", "boolean"},
		{"0", "false", "boolean"},
		{"1", "true", "boolean"},
		{"CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP", "timestamp with time zone"},
	} {
		if l, p := normalizeDefault(tt.sqlite, tt.typ), normalizeDefault(tt.postgres, tt.typ); l != p {
			t.Errorf("%s default: sqlite %q → %q, postgres %q → %q", tt.typ, tt.sqlite, l, tt.postgres, p)
		}
	}
	for _, tt := range []struct{ a, b, typ string }{
		{"'0'", "0", "text"},
		{"0", "1", "boolean"},
		{"'{}'", "'[]'", "jsonb"},
	} {
		if normalizeDefault(tt.a, tt.typ) == normalizeDefault(tt.b, tt.typ) {
			t.Errorf("%s defaults %q and %q compare equal", tt.typ, tt.a, tt.b)
		}
	}
}

func TestSQLiteChecksAreReadFromTheTable(t *testing.T) {
	ddl := `CREATE TABLE x (
    -- the loop's state (a comment with a quote and check (nothing))
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    checked_at TIMESTAMP, /* check (neither) */
    label TEXT CHECK (label IN ('a)', 'b')),
    CONSTRAINT pair CHECK ((id > 0) AND (label <> ''))
)`
	got, err := sqliteChecks(ddl)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"id = 1", "id > 0 and label <> ''", "label in 'a)', 'b'"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// migratedConn returns a connection to a fresh database of dialect, migrated as
// hone migrates when fsys is nil and from fsys otherwise.
func migratedConn(t *testing.T, dialect storage.Dialect, fsys fs.FS) *sql.DB {
	t.Helper()
	ctx := context.Background()
	dsn, driver := filepath.Join(t.TempDir(), "hone.db"), "sqlite"
	if dialect == storage.Postgres {
		url := os.Getenv(storagetest.PostgresURLEnv)
		if url == "" {
			t.Skip(storagetest.PostgresURLEnv + " is not set")
		}
		dsn, driver = storagetest.SchemaURL(t, url), "pgx"
	}
	if fsys == nil {
		db, err := storage.Open(ctx, dsn, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		err = db.Migrate(ctx)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	conn, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if fsys != nil {
		gd := goose.DialectSQLite3
		if dialect == storage.Postgres {
			gd = goose.DialectPostgres
		}
		p, err := goose.NewProvider(gd, conn, fsys, goose.WithDisableGlobalRegistry(true))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Up(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

// migrationsPlus returns the dialect's migrations with one more file.
func migrationsPlus(t *testing.T, dialect, name, text string) fs.FS {
	t.Helper()
	fsys := fstest.MapFS{name: &fstest.MapFile{Data: []byte(text)}}
	dir := filepath.Join("migrations", dialect)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fsys[e.Name()] = &fstest.MapFile{Data: data}
	}
	return fsys
}

func readSchemaOf(t *testing.T, dialect storage.Dialect, db *sql.DB) dbSchema {
	t.Helper()
	read := readSQLiteSchema
	if dialect == storage.Postgres {
		read = readPostgresSchema
	}
	s, err := read(context.Background(), db)
	if err != nil {
		t.Fatalf("read %s schema: %v", dialect, err)
	}
	return s
}
