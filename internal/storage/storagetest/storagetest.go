// Package storagetest opens real databases for tests: a fresh SQLite file
// always, and a fresh PostgreSQL schema when HONE_TEST_DATABASE_URL is set.
package storagetest

import (
	"context"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/storage"
)

// PostgresURLEnv names the variable that switches the PostgreSQL runs on.
const PostgresURLEnv = "HONE_TEST_DATABASE_URL"

var quiet = slog.New(slog.DiscardHandler)

// SQLite returns a migrated database in a new SQLite file, closed at the end of the test.
func SQLite(t testing.TB) *storage.DB {
	t.Helper()
	return open(t, filepath.Join(t.TempDir(), "hone.db"))
}

// Postgres returns a migrated database in a new schema of the PostgreSQL
// database at HONE_TEST_DATABASE_URL, dropped at the end of the test; the test
// is skipped when the variable is not set.
func Postgres(t testing.TB) *storage.DB {
	t.Helper()
	dsn := os.Getenv(PostgresURLEnv)
	if dsn == "" {
		t.Skip(PostgresURLEnv + " is not set")
	}
	return open(t, SchemaURL(t, dsn))
}

// SchemaURL creates a new schema in the database at dsn and returns a URL
// whose connections use it; the schema is dropped at the end of the test.
func SchemaURL(t testing.TB, dsn string) string {
	t.Helper()
	ctx := context.Background()
	admin, err := storage.Open(ctx, dsn, quiet)
	if err != nil {
		t.Fatalf("connect to %s: %v", PostgresURLEnv, err)
	}
	schema := "test_" + hone.NewID(10)
	if err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		admin.Close()
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func open(t testing.TB, dsn string) *storage.DB {
	t.Helper()
	ctx := context.Background()
	db, err := storage.Open(ctx, dsn, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return db
}

// Each runs fn as a subtest on SQLite, and on PostgreSQL when
// HONE_TEST_DATABASE_URL is set.
func Each(t *testing.T, fn func(t *testing.T, db *storage.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, SQLite(t)) })
	if os.Getenv(PostgresURLEnv) != "" {
		t.Run("postgres", func(t *testing.T) { fn(t, Postgres(t)) })
	}
}
