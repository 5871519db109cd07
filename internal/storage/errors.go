package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/honehq/hone"
	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Messages of the errors a failing database gives users; the cause goes to
// the log only.
const (
	unavailableText = "The database is unavailable; try again shortly."
	timeoutText     = "The database did not answer in time; try again shortly."
	fullText        = "The database is full; free some space and try again."
)

// dbError maps what the SQL drivers return to hone's error codes, the one
// place that knows them: a unique violation is ECONFLICT; a database that is
// down, timing out, locked or full is EUNAVAILABLE. Errors that already carry
// a code, and the domain's own sentinel errors, pass unchanged; anything else
// stays an internal error.
func dbError(err error) error {
	if err == nil {
		return nil
	}
	var he *hone.Error
	if errors.As(err, &he) {
		return err
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	if code := classify(err); code != "" {
		return &codedError{code: code, err: err}
	}
	return err
}

// codedError is a driver error with the hone error it stands for.
type codedError struct {
	code string
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }

// Unwrap gives both the user-facing *hone.Error and the driver's error.
func (e *codedError) Unwrap() []error {
	msg := unavailableText
	switch {
	case e.code == hone.EINVALID:
		msg = "A value holds a character that cannot be stored (a NUL, or bytes that are not UTF-8)."
	case e.code == hone.ECONFLICT:
		msg = "This conflicts with something already saved."
	case isTimeout(e.err):
		msg = timeoutText
	case isFull(e.err):
		msg = fullText
	}
	return []error{&hone.Error{Code: e.code, Message: msg}, e.err}
}

// classify returns the code of a driver error, "" when it has none.
func classify(err error) string {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch {
		case pg.Code == "23505":
			return hone.ECONFLICT
		case pg.Code == "22021", pg.Code == "22P05": // a NUL or a byte that is not UTF-8 in a value
			return hone.EINVALID
		case strings.HasPrefix(pg.Code, "08"), // connection exception
			strings.HasPrefix(pg.Code, "53"),       // insufficient resources: disk full, out of memory, too many connections
			strings.HasPrefix(pg.Code, "57P"),      // shutting down, cannot connect now
			strings.HasPrefix(pg.Code, "58"),       // system error, I/O error
			pg.Code == "57014",                     // query cancelled: statement_timeout
			pg.Code == "40001", pg.Code == "40P01", // serialization failure, deadlock
			pg.Code == "55P03": // lock not available
			return hone.EUNAVAILABLE
		}
		return ""
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		switch lite.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return hone.ECONFLICT
		}
		switch lite.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_NOMEM, sqlite3.SQLITE_IOERR,
			sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PROTOCOL, sqlite3.SQLITE_READONLY,
			sqlite3.SQLITE_INTERRUPT:
			return hone.EUNAVAILABLE
		}
		return ""
	}
	var netErr net.Error
	var connect *pgconn.ConnectError
	switch {
	case errors.Is(err, context.DeadlineExceeded), pgconn.Timeout(err), pgconn.SafeToRetry(err),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.As(err, &connect), errors.As(err, &netErr),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, syscall.ENOSPC), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		strings.Contains(err.Error(), "sql: database is closed"):
		return hone.EUNAVAILABLE
	}
	return ""
}

func isTimeout(err error) bool {
	var lite *sqlite.Error
	if errors.As(err, &lite) && lite.Code()&0xff == sqlite3.SQLITE_BUSY {
		return true
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) && (pg.Code == "57014" || pg.Code == "55P03") {
		return true
	}
	return errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err)
}

func isFull(err error) bool {
	var lite *sqlite.Error
	if errors.As(err, &lite) && lite.Code()&0xff == sqlite3.SQLITE_FULL {
		return true
	}
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "53100" || errors.Is(err, syscall.ENOSPC)
}
