package proxy

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
)

// BatchRecorder records turns in one write: capture.Recorder.
type BatchRecorder interface {
	RecordBatch(ctx context.Context, ins []capture.TurnInput, key string) ([]capture.TurnResult, error)
}

// Why a proxied turn was not recorded, as the drop counter names it.
const (
	// DropQueueFull is a turn that found the recording queue full.
	DropQueueFull = "queue_full"
	// DropStore is a turn the database did not take (down, full or slow).
	DropStore = "store"
	// DropInvalid is a turn hone could not make valid.
	DropInvalid = "invalid"
)

// DropReasons lists every reason a turn is dropped for.
var DropReasons = []string{DropQueueFull, DropStore, DropInvalid}

// DefaultQueueSize is how many turns wait to be recorded before more are
// dropped.
const DefaultQueueSize = 4096

// maxBatch is the most turns one write records: past about 50 a turn costs
// the database no less, and a longer write holds a core longer while
// proxied calls wait for one.
const maxBatch = 64

// lingerFor is how long the worker gathers turns into a batch before it
// writes them: long enough to write a busy moment's turns together, short
// enough that each write is a short burst of work beside the proxied calls
// (a 20 ms linger made the proxy's p99 twice as long at 500 calls a second).
const lingerFor = 5 * time.Millisecond

// writeTimeout bounds one write of the recording queue.
const writeTimeout = 30 * time.Second

// Queue records proxied turns off the request path: Add never waits, a
// worker records what was added in batches, and what it had to drop is
// counted by reason and logged once per burst.
type Queue struct {
	rec     BatchRecorder
	log     *slog.Logger
	ch      chan queued
	dropped [3]atomic.Int64
	// full and failing are set while a burst of drops lasts, so that a
	// burst is logged once when it starts and once when it ends.
	full, failing atomic.Bool
	start, stop   sync.Once
	quit, done    chan struct{}
}

// queued is one turn to record, or a request to say when everything added
// before it was written.
type queued struct {
	in      capture.TurnInput
	flushed chan struct{}
}

// NewQueue returns a Queue of size turns recording through rec.
func NewQueue(rec BatchRecorder, size int, log *slog.Logger) *Queue {
	if size <= 0 {
		size = DefaultQueueSize
	}
	if log == nil {
		log = slog.Default()
	}
	return &Queue{rec: rec, log: log, ch: make(chan queued, size), quit: make(chan struct{}), done: make(chan struct{})}
}

// Add queues a turn without waiting; a full queue drops it and counts it.
func (q *Queue) Add(in capture.TurnInput) {
	select {
	case q.ch <- queued{in: in}:
		if q.full.CompareAndSwap(true, false) {
			q.log.Info("proxy: the recording queue takes turns again", "dropped_total", q.Dropped(DropQueueFull))
		}
	default:
		q.drop(DropQueueFull, 1)
		if q.full.CompareAndSwap(false, true) {
			q.log.Warn("proxy: the recording queue is full; proxied turns are answered but not recorded until it drains",
				"queue_size", cap(q.ch), "dropped_total", q.Dropped(DropQueueFull))
		}
	}
}

// Flush waits until every turn added before it was written (or dropped),
// or ctx ends.
func (q *Queue) Flush(ctx context.Context) {
	done := make(chan struct{})
	select {
	case q.ch <- queued{flushed: done}:
	case <-ctx.Done():
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// Dropped is how many turns were dropped for reason.
func (q *Queue) Dropped(reason string) int64 {
	for i, r := range DropReasons {
		if r == reason {
			return q.dropped[i].Load()
		}
	}
	return 0
}

// Len is how many turns wait to be recorded.
func (q *Queue) Len() int { return len(q.ch) }

func (q *Queue) drop(reason string, n int) {
	for i, r := range DropReasons {
		if r == reason {
			q.dropped[i].Add(int64(n))
		}
	}
}

// Start starts the worker.
func (q *Queue) Start() { q.start.Do(func() { go q.run() }) }

// Stop records what is queued and stops the worker.
func (q *Queue) Stop() {
	q.start.Do(func() { close(q.done) })
	q.stop.Do(func() { close(q.quit) })
	<-q.done
}

func (q *Queue) run() {
	defer close(q.done)
	batch := make([]capture.TurnInput, 0, maxBatch)
	var flushes []chan struct{}
	take := func(it queued) {
		if it.flushed != nil {
			flushes = append(flushes, it.flushed)
		} else {
			batch = append(batch, it.in)
		}
	}
	for {
		select {
		case it := <-q.ch:
			take(it)
			linger := time.NewTimer(lingerFor)
		more:
			for len(batch) < maxBatch && len(flushes) == 0 {
				select {
				case it := <-q.ch:
					take(it)
				case <-linger.C:
					break more
				}
			}
			linger.Stop()
		case <-q.quit:
			for {
				select {
				case it := <-q.ch:
					take(it)
					if len(batch) == maxBatch {
						q.write(batch)
						batch = batch[:0]
					}
					continue
				default:
				}
				break
			}
			q.write(batch)
			for _, f := range flushes {
				close(f)
			}
			return
		}
		q.write(batch)
		clear(batch)
		batch = batch[:0]
		for _, f := range flushes {
			close(f)
		}
		flushes = flushes[:0]
	}
}

// write records a batch, each turn made valid first; what the database does
// not take is dropped and counted.
func (q *Queue) write(batch []capture.TurnInput) {
	if len(batch) == 0 {
		return
	}
	ins := batch[:0:0]
	for i := range batch {
		if err := fit(&batch[i]); err != nil {
			q.drop(DropInvalid, 1)
			q.log.Warn("proxy: a turn could not be recorded", "turn_id", batch[i].ID, "err", hone.ErrorMessage(err))
			continue
		}
		ins = append(ins, batch[i])
	}
	if len(ins) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	res, err := q.rec.RecordBatch(ctx, ins, "")
	if err != nil {
		q.drop(DropStore, len(ins))
		if q.failing.CompareAndSwap(false, true) {
			q.log.Error("proxy: the database does not take proxied turns; they are answered but not recorded until it does",
				"dropped_total", q.Dropped(DropStore), "err", err)
		}
		return
	}
	if q.failing.CompareAndSwap(true, false) {
		q.log.Info("proxy: proxied turns are recorded again", "dropped_total", q.Dropped(DropStore))
	}
	for i, r := range res {
		if r.Err != nil {
			q.drop(DropInvalid, 1)
			q.log.Warn("proxy: a turn could not be recorded", "turn_id", ins[i].ID, "err", hone.ErrorMessage(r.Err))
		}
	}
}
