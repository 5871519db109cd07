// Package storage keeps hone's data in SQLite (embedded, the default) or
// PostgreSQL, behind the store interfaces the domain packages define: one
// store per capability (CaptureStore, TuningStore, ScoringStore,
// LLMCallStore, AuthStore, WorkshopStore), all over one DB, its connections
// and, on SQLite, its one writer. One set of SQL serves both databases; dialect differences
// are handled where they occur, and driver errors are mapped to hone's error
// codes in one place (errors.go).
package storage

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/honehq/hone"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	_ "modernc.org/sqlite"
)

//go:embed migrations
var migrations embed.FS

// Dialect names the SQL database behind a DB.
type Dialect string

// The supported dialects.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DB is hone's database. On SQLite, writes go through one connection (SQLite
// has one writer) and reads through a pool; on PostgreSQL both share one pool.
type DB struct {
	dialect Dialect
	write   *sql.DB
	read    *sql.DB
	log     *slog.Logger
	// Now is the clock every stored timestamp comes from; tests replace it.
	Now func() time.Time
	// Timeout bounds each store call; Open sets DefaultTimeout.
	Timeout time.Duration
	// StreamTimeout bounds a call that streams a whole session (an export);
	// Open sets DefaultStreamTimeout.
	StreamTimeout time.Duration
	// Meter, when set, is told of every query and write transaction; set it
	// before the database is used.
	Meter Meter

	rebound sync.Map
	// stmts holds the SQLite writer's prepared statements: parsing SQL costs
	// more than running these small statements.
	stmts sync.Map

	jobs chan writeJob
	// queued counts the write transactions handed to the SQLite writer
	// and not yet answered.
	queued  atomic.Int64
	stop    chan struct{}
	stopped chan struct{}
	// checkpoints is the SQLite connection that copies the write-ahead log
	// into the database file, off the writer's path; commits counts the
	// writer's commits so that it works only after some.
	checkpoints  *sql.DB
	commits      atomic.Int64
	checkpointed chan struct{}
}

// Default time limits of store calls.
const (
	DefaultTimeout       = 10 * time.Second
	DefaultStreamTimeout = 10 * time.Minute
)

// Open connects to the database named by dsn: a postgres:// or postgresql://
// URL for PostgreSQL, anything else a SQLite file path. It does not migrate.
func Open(ctx context.Context, dsn string, log *slog.Logger) (*DB, error) {
	if log == nil {
		log = slog.Default()
	}
	db := &DB{log: log, Now: time.Now, Timeout: DefaultTimeout, StreamTimeout: DefaultStreamTimeout}
	var err error
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		db.dialect = Postgres
		if db.write, err = sql.Open("pgx", dsn); err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		db.write.SetMaxOpenConns(20)
		db.write.SetMaxIdleConns(20)
		db.read = db.write
	} else {
		db.dialect = SQLite
		if dir := filepath.Dir(dsn); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("create data directory: %w", err)
			}
		}
		base := "file:" + (&url.URL{Path: dsn}).EscapedPath() +
			"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_pragma=temp_store(memory)&_time_format=sqlite"
		if db.write, err = sql.Open("sqlite", base+"&_txlock=immediate&_pragma=wal_autocheckpoint(0)"); err != nil {
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
		db.write.SetMaxOpenConns(1)
		db.write.SetMaxIdleConns(1)
		db.write.SetConnMaxLifetime(0)
		if db.read, err = sql.Open("sqlite", base+"&_pragma=query_only(1)"); err != nil {
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
		db.read.SetMaxOpenConns(8)
		db.read.SetMaxIdleConns(8)
		if db.checkpoints, err = sql.Open("sqlite", base); err != nil {
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
		db.checkpoints.SetMaxOpenConns(1)
	}
	if err := db.write.PingContext(ctx); err != nil {
		db.Close()
		return nil, dbError(fmt.Errorf("connect to %s database: %w", db.dialect, redact(err, dsn)))
	}
	if db.dialect == SQLite {
		db.jobs, db.stop, db.stopped = make(chan writeJob), make(chan struct{}), make(chan struct{})
		db.checkpointed = make(chan struct{})
		go db.writer()
		go db.checkpointer()
	}
	return db, nil
}

// redact removes a password that a connection error may repeat.
func redact(err error, dsn string) error {
	u, perr := url.Parse(dsn)
	if perr != nil || u.User == nil {
		return err
	}
	if p, ok := u.User.Password(); ok && p != "" && strings.Contains(err.Error(), p) {
		return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), p, "xxxxx"))
	}
	return err
}

// Dialect returns which database this is.
func (db *DB) Dialect() Dialect { return db.dialect }

// Close closes the connections.
func (db *DB) Close() error {
	if db.stop != nil {
		close(db.stop)
		<-db.stopped
		<-db.checkpointed
		db.stop = nil
	}
	if db.checkpoints != nil {
		_, _ = db.checkpoints.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
		db.checkpoints.Close()
	}
	db.stmts.Range(func(_, st any) bool {
		st.(*sql.Stmt).Close()
		return true
	})
	var err error
	if db.write != nil {
		err = db.write.Close()
	}
	if db.read != nil && db.read != db.write {
		if cerr := db.read.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// Migrate brings the schema up to date. Several processes may call it at once
// on one PostgreSQL database: a session lock lets one migrate at a time.
func (db *DB) Migrate(ctx context.Context) error {
	p, err := db.migrator()
	if err != nil {
		return err
	}
	results, err := p.Up(ctx)
	for _, r := range results {
		db.log.Info("migrated", "version", r.Source.Version, "file", filepath.Base(r.Source.Path), "duration", r.Duration)
	}
	if err != nil {
		return fmt.Errorf("migrate %s database: %w", db.dialect, err)
	}
	return nil
}

// MigrationStatus lists each migration with whether it has been applied.
func (db *DB) MigrationStatus(ctx context.Context) ([]string, error) {
	p, err := db.migrator()
	if err != nil {
		return nil, err
	}
	st, err := p.Status(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(st))
	for _, s := range st {
		out = append(out, fmt.Sprintf("%05d %-10s %s", s.Source.Version, s.State, filepath.Base(s.Source.Path)))
	}
	return out, nil
}

func (db *DB) migrator() (*goose.Provider, error) {
	fsys, err := fs.Sub(migrations, "migrations/"+string(db.dialect))
	if err != nil {
		return nil, err
	}
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true)}
	dialect := goose.DialectSQLite3
	if db.dialect == Postgres {
		dialect = goose.DialectPostgres
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return nil, err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	return goose.NewProvider(dialect, db.write, fsys, opts...)
}

// q returns query with its ? placeholders in the dialect's form.
func (db *DB) q(query string) string {
	if db.dialect != Postgres {
		return query
	}
	if v, ok := db.rebound.Load(query); ok {
		return v.(string)
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	db.rebound.Store(query, b.String())
	return b.String()
}

// now is the current time as stored: UTC, to the microsecond.
func (db *DB) now() time.Time { return db.Now().UTC().Truncate(time.Microsecond) }

// Tx is a write transaction with the time it started.
type Tx struct {
	*sql.Tx
	db         *DB
	now        time.Time
	unprepared []string
}

func (tx *Tx) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := tx.prepared(query); st != nil {
		return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, tx.db.q(query), args...)
}

func (tx *Tx) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	if st := tx.prepared(query); st != nil {
		return tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, tx.db.q(query), args...)
}

func (tx *Tx) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := tx.prepared(query); st != nil {
		return tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return tx.QueryContext(ctx, tx.db.q(query), args...)
}

// prepared returns the SQLite writer's prepared statement for query, or nil
// on PostgreSQL, whose driver keeps its own statement cache per connection.
// A statement not prepared yet is prepared once the transaction is over: the
// writer's one connection is busy until then.
func (tx *Tx) prepared(query string) *sql.Stmt {
	if tx.db.dialect != SQLite {
		return nil
	}
	if st, ok := tx.db.stmts.Load(query); ok {
		return st.(*sql.Stmt)
	}
	tx.unprepared = append(tx.unprepared, query)
	return nil
}

func (db *DB) prepare(ctx context.Context, queries []string) {
	for _, q := range queries {
		if _, ok := db.stmts.Load(q); ok {
			continue
		}
		if st, err := db.write.PrepareContext(ctx, q); err == nil {
			db.stmts.Store(q, st)
		}
	}
}

// limit bounds ctx with the time limit of one store call.
func (db *DB) limit(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, db.Timeout)
}

// update runs fn in a write transaction, committing when it returns nil. On
// SQLite the writer runs it; a caller whose ctx ends first stops waiting, and
// the transaction, if it had not started, never runs.
// When ctx carries a transaction of db (see Atomically), fn runs in it.
func (db *DB) update(ctx context.Context, fn func(*Tx) error) (err error) {
	if tx := db.txOf(ctx); tx != nil {
		return dbError(fn(tx))
	}
	if db.Meter != nil {
		defer db.observe(OpWrite, time.Now(), &err)
	}
	if db.jobs != nil {
		j := writeJob{ctx: ctx, fn: fn, done: make(chan error, 1), state: new(atomic.Int32)}
		db.queued.Add(1)
		select {
		case db.jobs <- j:
		case <-ctx.Done():
			db.queued.Add(-1)
			return dbError(ctx.Err())
		}
		select {
		case err := <-j.done:
			return dbError(err)
		case <-ctx.Done():
			if j.state.CompareAndSwap(jobWaiting, jobAbandoned) {
				return dbError(ctx.Err())
			}
			// The writer has begun the job: its outcome, committed or
			// not, is the answer, and fn is done with what it shares.
			return dbError(<-j.done)
		}
	}
	sqltx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return dbError(fmt.Errorf("begin: %w", err))
	}
	tx := &Tx{Tx: sqltx, db: db, now: db.now()}
	if err := fn(tx); err != nil {
		_ = sqltx.Rollback()
		return dbError(err)
	}
	if err := sqltx.Commit(); err != nil {
		return dbError(fmt.Errorf("commit: %w", err))
	}
	return nil
}

// queryRow and query read through the transaction ctx carries, if any, so
// that what it wrote is seen; else through the read connections.
func (db *DB) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	if tx := db.txOf(ctx); tx != nil {
		return tx.queryRow(ctx, query, args...)
	}
	if db.Meter == nil {
		return db.read.QueryRowContext(ctx, db.q(query), args...)
	}
	start := time.Now()
	row := db.read.QueryRowContext(ctx, db.q(query), args...)
	err := dbError(row.Err())
	db.observe(OpRead, start, &err)
	return row
}

func (db *DB) query(ctx context.Context, query string, args ...any) (rows *sql.Rows, err error) {
	if tx := db.txOf(ctx); tx != nil {
		return tx.query(ctx, query, args...)
	}
	if db.Meter != nil {
		defer db.observe(OpRead, time.Now(), &err)
	}
	return db.read.QueryContext(ctx, db.q(query), args...)
}

// Meter is told how database calls went, for monitoring.
type Meter interface {
	// ObserveDBCall is told of one call: op is OpRead or OpWrite, d how
	// long it took, and unavailable whether it found the database down,
	// timing out, locked or full (the calls answered 503).
	ObserveDBCall(op string, d time.Duration, unavailable bool)
}

// The operations a Meter is told of: a read is a query on the read pool,
// timed until its first rows are ready; a write is a write transaction,
// timed from the call to its commit, the wait for SQLite's writer included.
const (
	OpRead  = "read"
	OpWrite = "write"
)

// observe tells the Meter of a call of op that began at start and ended with
// *err.
func (db *DB) observe(op string, start time.Time, err *error) {
	db.Meter.ObserveDBCall(op, time.Since(start), *err != nil && hone.ErrorCode(dbError(*err)) == hone.EUNAVAILABLE)
}

// WriterQueue is how many write transactions wait for SQLite's one writer
// or are in the batch it is writing; 0 on PostgreSQL, which has no such
// queue.
func (db *DB) WriterQueue() int { return int(db.queued.Load()) }

// BackgroundRuns counts the runs of hone's background work in the database,
// by kind ("workshop_analysis", "learning_synthesis") and then by state
// (queued, running, done, failed).
func (db *DB) BackgroundRuns(ctx context.Context) (map[string]map[string]int, error) {
	ctx, cancel := db.limit(ctx)
	defer cancel()
	rows, err := db.query(ctx, `SELECT 'workshop_analysis', status, COUNT(*) FROM discovery_analysis GROUP BY status
		UNION ALL SELECT 'learning_synthesis', status, COUNT(*) FROM learning_runs GROUP BY status`)
	type count struct {
		kind, state string
		n           int
	}
	counts, err := collect(rows, err, "background runs", func(s scanner) (count, error) {
		var c count
		err := s.Scan(&c.kind, &c.state, &c.n)
		return c, err
	})
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]int{}
	for _, c := range counts {
		if out[c.kind] == nil {
			out[c.kind] = map[string]int{}
		}
		out[c.kind][c.state] += c.n
	}
	return out, nil
}

// notFound is the error for a missing row of kind with id.
func notFound(kind, id string) error {
	return hone.Errorf(hone.ENOTFOUND, "%s %q not found", kind, id)
}

// Exec runs a statement outside any store method; for administration and tests.
func (db *DB) Exec(ctx context.Context, query string, args ...any) error {
	_, err := db.write.ExecContext(ctx, db.q(query), args...)
	return dbError(err)
}

// collect reads every row of a query with scan; what names the rows in errors.
func collect[T any](rows *sql.Rows, err error, what string, scan func(scanner) (T, error)) ([]T, error) {
	if err != nil {
		return nil, dbError(fmt.Errorf("read %s: %w", what, err))
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, dbError(fmt.Errorf("read %s: %w", what, err))
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, dbError(fmt.Errorf("read %s: %w", what, err))
	}
	return out, nil
}
