package suggest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// HistoryFile is the name of each session's JSONL file.
const HistoryFile = "suggestion_history.jsonl"

// EnvHistory switches the JSONL history on when set to 1 (or true, yes, on).
const EnvHistory = "HONE_SUGGESTION_HISTORY"

// EnabledFromEnv reports whether HONE_SUGGESTION_HISTORY switches the JSONL
// history on. Recording is off unless it does.
func EnabledFromEnv() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(EnvHistory))) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// HistorySink returns the JSONL sink when HONE_SUGGESTION_HISTORY switches
// the history on, and nil (record nothing to disk) when it does not: the
// opt-in the spec asks for. NewJSONL opens one regardless.
func HistorySink(opts JSONLOptions) (Sink, error) {
	if !EnabledFromEnv() {
		return nil, nil
	}
	return NewJSONL(opts)
}

// DefaultRoot is where the history goes by default: ~/.hone/session_history.
func DefaultRoot() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the home directory for the suggestion history: %w", err)
	}
	return filepath.Join(home, ".hone", "session_history"), nil
}

// DefaultQueue is how many records the JSONL sink holds for its writer.
const DefaultQueue = 8192

// JSONLOptions configure a JSONL sink.
type JSONLOptions struct {
	// Root is the history's directory (DefaultRoot when empty).
	Root string
	// Queue bounds the records waiting for the writer (DefaultQueue when
	// 0); past it, records are dropped and counted.
	Queue int
	// Redactor redacts each record before it is written; nil takes
	// DefaultRedactor (API keys), and NewRedactor() with no redactions
	// writes records as they are.
	Redactor *Redactor
	// OnError is told of each record or write that failed (nil: ignored,
	// but counted in Failed); it is called from one goroutine at a time.
	OnError func(error)
}

// JSONL is the sink that appends each record as one line to
// <root>/<server>/<session>/suggestion_history.jsonl, the folders named by
// PathPart, below the root only (a link out of it is not followed: the
// record fails). Send never waits:
// a background writer does the disk work, and when its queue is full the
// record is dropped and counted (Dropped), never silently lost. Each line
// is written whole, in one write with the lines queued with it, so a crash
// leaves at most a torn last line.
type JSONL struct {
	opts    JSONLOptions
	queue   chan *Record
	done    chan struct{}
	dropped atomic.Int64
	written atomic.Int64
	failed  atomic.Int64

	errMu     sync.Mutex
	closeOnce sync.Once
	mu        sync.RWMutex
	closed    bool
	files     map[string]*os.File
	// root is the history's directory: files are opened below it only,
	// never through a link out of it.
	root *os.Root
}

// NewJSONL starts a JSONL sink; Close flushes it.
func NewJSONL(opts JSONLOptions) (*JSONL, error) {
	if opts.Root == "" {
		root, err := DefaultRoot()
		if err != nil {
			return nil, err
		}
		opts.Root = root
	}
	if opts.Queue <= 0 {
		opts.Queue = DefaultQueue
	}
	if opts.Redactor == nil {
		opts.Redactor = DefaultRedactor()
	}
	if err := os.MkdirAll(opts.Root, 0o700); err != nil {
		return nil, fmt.Errorf("create the suggestion history %s: %w", opts.Root, err)
	}
	root, err := os.OpenRoot(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("open the suggestion history %s: %w", opts.Root, err)
	}
	j := &JSONL{opts: opts, queue: make(chan *Record, opts.Queue), done: make(chan struct{}), files: map[string]*os.File{}, root: root}
	go j.run()
	return j, nil
}

// Send queues r for the writer, or counts it dropped when the queue is
// full or the sink closed.
func (j *JSONL) Send(r *Record) {
	j.mu.RLock()
	defer j.mu.RUnlock()
	if j.closed {
		j.dropped.Add(1)
		return
	}
	select {
	case j.queue <- r:
	default:
		j.dropped.Add(1)
	}
}

// Dropped counts the records dropped because the queue was full or the
// sink closed.
func (j *JSONL) Dropped() int64 { return j.dropped.Load() }

// Written counts the records written.
func (j *JSONL) Written() int64 { return j.written.Load() }

// Failed counts the records a write error lost.
func (j *JSONL) Failed() int64 { return j.failed.Load() }

// Close writes every queued record, closes the files and reports the
// first error of closing them, and how many records were dropped or
// failed, if any were.
func (j *JSONL) Close() error {
	j.closeOnce.Do(func() {
		j.mu.Lock()
		j.closed = true
		close(j.queue)
		j.mu.Unlock()
	})
	<-j.done
	var errs []error
	for _, f := range j.files {
		if err := f.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	clear(j.files)
	if j.root != nil {
		if err := j.root.Close(); err != nil {
			errs = append(errs, err)
		}
		j.root = nil
	}
	if d, f := j.Dropped(), j.Failed(); d > 0 || f > 0 {
		errs = append(errs, fmt.Errorf("suggestion history: %d records dropped (queue full), %d lost to write errors", d, f))
	}
	return errors.Join(errs...)
}

// run writes what is queued: each time, every record waiting (up to
// maxBatch), encoded on every CPU, one write per file, in the order sent.
func (j *JSONL) run() {
	defer close(j.done)
	workers := max(1, runtime.GOMAXPROCS(0))
	parts := make([]*encoded, workers)
	for i := range parts {
		parts[i] = &encoded{files: map[sessionKey]*fileBuf{}}
	}
	batch := make([]*Record, 0, maxBatch)
	var order []sessionKey
	for r := range j.queue {
		batch = append(batch[:0], r)
	more:
		for len(batch) < maxBatch {
			select {
			case r, ok := <-j.queue:
				if !ok {
					break more
				}
				batch = append(batch, r)
			default:
				break more
			}
		}
		n := 1
		if len(batch) >= 2*minPart {
			n = min(workers, len(batch)/minPart)
		}
		size := (len(batch) + n - 1) / n
		var wg sync.WaitGroup
		for i := 1; i < n; i++ {
			chunk := batch[min(i*size, len(batch)):min((i+1)*size, len(batch))]
			wg.Go(func() { j.encode(parts[i], chunk) })
		}
		j.encode(parts[0], batch[:min(size, len(batch))])
		wg.Wait()
		order = order[:0]
		for _, p := range parts[:n] {
			for _, k := range p.order {
				if !slices.Contains(order, k) {
					order = append(order, k)
				}
			}
		}
		for _, k := range order {
			var out []byte
			var count int64
			var path string
			for _, p := range parts[:n] {
				if f := p.files[k]; f != nil && f.n > 0 {
					if out == nil {
						out = f.buf
					} else {
						out = append(out, f.buf...)
					}
					count += f.n
					path = f.path
				}
			}
			if count == 0 {
				continue
			}
			if err := j.write(path, out); err != nil {
				j.failed.Add(count)
				j.report(err)
			} else {
				j.written.Add(count)
			}
		}
		for _, p := range parts[:n] {
			p.reset()
		}
		clear(batch)
	}
}

// report tells OnError of err, one call at a time.
func (j *JSONL) report(err error) {
	if j.opts.OnError == nil {
		return
	}
	j.errMu.Lock()
	defer j.errMu.Unlock()
	j.opts.OnError(err)
}

// minPart is the fewest records worth encoding on another goroutine.
const minPart = 32

// sessionKey names a session's file.
type sessionKey struct{ server, session string }

// fileBuf are the lines encoded for one file.
type fileBuf struct {
	path string
	buf  []byte
	n    int64
}

// encoded are lines encoded for each file, in the order their files first
// came.
type encoded struct {
	files map[sessionKey]*fileBuf
	order []sessionKey
}

func (e *encoded) reset() {
	if len(e.files) > maxOpenFiles {
		clear(e.files)
	}
	for _, f := range e.files {
		f.buf = f.buf[:0]
		f.n = 0
	}
	e.order = e.order[:0]
}

// encode appends the records' lines to e.
func (j *JSONL) encode(e *encoded, records []*Record) {
	for _, r := range records {
		k := sessionKey{r.Server, r.Session}
		f := e.files[k]
		if f == nil {
			f = &fileBuf{path: filepath.Join(PathPart(r.Server), PathPart(r.Session), HistoryFile)}
			e.files[k] = f
		}
		if f.n == 0 {
			e.order = append(e.order, k)
		}
		line, err := appendRecord(f.buf, r, j.opts.Redactor)
		if err != nil {
			j.failed.Add(1)
			j.report(fmt.Errorf("encode suggestion record %s: %w", r.ID, err))
			continue
		}
		f.buf = line
		f.n++
	}
}

// write appends b to the file at path, below the root.
func (j *JSONL) write(path string, b []byte) error {
	f := j.files[path]
	if f == nil {
		if err := j.root.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("suggestion history %s: %w", j.opts.Root, err)
		}
		var err error
		f, err = j.root.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("suggestion history %s: %w", j.opts.Root, err)
		}
		if err := endLine(f); err != nil {
			f.Close()
			return fmt.Errorf("suggestion history: %s: %w", filepath.Join(j.opts.Root, path), err)
		}
		if len(j.files) >= maxOpenFiles {
			for p, old := range j.files {
				old.Close()
				delete(j.files, p)
			}
		}
		j.files[path] = f
	}
	if _, err := f.Write(b); err != nil {
		return fmt.Errorf("suggestion history: write %s: %w", filepath.Join(j.opts.Root, path), err)
	}
	return nil
}

// endLine ends a torn last line, left by a writer that stopped mid-line,
// so that the next record starts a line of its own.
func endLine(f *os.File) error {
	info, err := f.Stat()
	if err != nil || info.Size() == 0 {
		return err
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, info.Size()-1); err != nil {
		return err
	}
	if last[0] != '\n' {
		_, err = f.Write([]byte{'\n'})
	}
	return err
}

// maxBatch bounds the records written at once.
const maxBatch = 1024

// maxOpenFiles bounds the session files the writer keeps open.
const maxOpenFiles = 64
