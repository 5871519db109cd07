package storage

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// maxBatch is the most write transactions committed together on SQLite.
const maxBatch = 64

// writeJob is one caller's write transaction waiting for the SQLite writer.
type writeJob struct {
	ctx  context.Context
	fn   func(*Tx) error
	done chan error
	// state is jobWaiting until the writer takes the job up (jobTaken) or
	// its caller gives up waiting first (jobAbandoned): a job is either run
	// and waited for, or never run.
	state *atomic.Int32
}

// The states of a writeJob.
const (
	jobWaiting int32 = iota
	jobTaken
	jobAbandoned
)

// writer runs SQLite's write transactions on its one connection. It commits
// whatever transactions are waiting together: each runs inside a savepoint of
// one database transaction, so a failing one rolls back alone, and one commit
// (one WAL write) serves them all. A transaction waiting alone needs no
// savepoint: it commits or rolls back by itself.
func (db *DB) writer() {
	defer close(db.stopped)
	for {
		var first writeJob
		select {
		case first = <-db.jobs:
		case <-db.stop:
			return
		}
		batch := []writeJob{first}
	drain:
		for len(batch) < maxBatch {
			select {
			case j := <-db.jobs:
				batch = append(batch, j)
			default:
				break drain
			}
		}
		db.runBatch(batch)
		db.queued.Add(-int64(len(batch)))
	}
}

func (db *DB) runBatch(batch []writeJob) {
	ctx, cancel := context.WithTimeout(context.Background(), db.Timeout)
	defer cancel()
	sqltx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		for _, j := range batch {
			j.done <- fmt.Errorf("begin: %w", err)
		}
		return
	}
	results := make([]error, len(batch))
	var unprepared []string
	for i, j := range batch {
		if !j.state.CompareAndSwap(jobWaiting, jobTaken) {
			results[i] = context.Canceled
			continue
		}
		if err := j.ctx.Err(); err != nil {
			results[i] = err
			continue
		}
		tx := &Tx{Tx: sqltx, db: db, now: db.now()}
		if len(batch) == 1 {
			results[i] = j.fn(tx)
		} else {
			results[i] = db.inSavepoint(j.ctx, tx, j.fn)
		}
		unprepared = append(unprepared, tx.unprepared...)
	}
	if len(batch) == 1 && results[0] != nil {
		if err := sqltx.Rollback(); err != nil {
			results[0] = fmt.Errorf("%w (and rolling back failed: %v)", results[0], err)
		}
	} else if err := sqltx.Commit(); err != nil {
		for i := range results {
			if results[i] == nil {
				results[i] = fmt.Errorf("commit: %w", err)
			}
		}
	} else {
		db.commits.Add(1)
	}
	db.prepare(ctx, unprepared)
	for i, j := range batch {
		j.done <- results[i]
	}
}

// inSavepoint runs fn so that its changes are undone alone when it fails.
func (db *DB) inSavepoint(ctx context.Context, tx *Tx, fn func(*Tx) error) error {
	return tx.savepoint(ctx, "job", func() error { return fn(tx) })
}

// savepoint runs fn inside the savepoint name, so that when fn fails its
// changes are undone and the transaction goes on.
func (tx *Tx) savepoint(ctx context.Context, name string, fn func() error) error {
	if _, err := tx.exec(ctx, "SAVEPOINT "+name); err != nil {
		return fmt.Errorf("savepoint: %w", err)
	}
	if err := fn(); err != nil {
		if _, rerr := tx.exec(context.WithoutCancel(ctx), "ROLLBACK TO SAVEPOINT "+name); rerr != nil {
			return fmt.Errorf("%w (and rolling back failed: %v)", err, rerr)
		}
		_, _ = tx.exec(context.WithoutCancel(ctx), "RELEASE SAVEPOINT "+name)
		return err
	}
	if _, err := tx.exec(ctx, "RELEASE SAVEPOINT "+name); err != nil {
		return fmt.Errorf("release savepoint: %w", err)
	}
	return nil
}

// checkpointEvery is how often the checkpointer looks for new commits.
const checkpointEvery = 200 * time.Millisecond

// checkpointer copies the write-ahead log into the database file after
// commits, in the background: SQLite would otherwise do it inside a commit of
// the writer every 1,000 pages, holding up every write waiting behind it. A
// PASSIVE checkpoint waits for no one and blocks no one.
func (db *DB) checkpointer() {
	defer close(db.checkpointed)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	var done int64
	for {
		select {
		case <-db.stop:
			return
		case <-t.C:
		}
		if n := db.commits.Load(); n != done {
			if _, err := db.checkpoints.Exec("PRAGMA wal_checkpoint(PASSIVE)"); err != nil {
				db.log.Warn("checkpoint the write-ahead log", "err", err)
				continue
			}
			done = n
		}
	}
}
