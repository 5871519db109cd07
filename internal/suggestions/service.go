package suggestions

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"os"
	"path/filepath"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/suggest"
)

// Options configure a Service.
type Options struct {
	Logger *slog.Logger
	// HistoryRoot is the JSONL history tree Forget also clears (the
	// suggest library's default root when empty).
	HistoryRoot string
}

// Service is the suggestion-tracking capability, for every face.
type Service struct {
	store Store
	opts  Options
	log   *slog.Logger
}

// NewService returns the capability over store.
func NewService(store Store, opts Options) *Service {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Service{store: store, opts: opts, log: opts.Logger}
}

// Result is what an ingestion did: the records stored, those already
// stored (by id), and the lines refused: the first ndjson.ListedErrors
// listed, the others counted in ErrorsNotListed.
type Result struct {
	Accepted        int         `json:"accepted"`
	Duplicates      int         `json:"duplicates"`
	Errors          []LineError `json:"errors"`
	ErrorsNotListed int         `json:"errors_not_listed,omitempty"`
}

// Refused counts the lines refused, listed or not.
func (r *Result) Refused() int { return len(r.Errors) + r.ErrorsNotListed }

// addChunk bounds the records stored in one transaction.
const addChunk = 2000

// Ingest stores the records of a body: application/x-ndjson (one per
// line), or JSON (one record or an array), at most ndjson.MaxBatchItems
// (a larger body is refused whole, ETOOLARGE). Bad lines are reported,
// the good ones kept.
func (s *Service) Ingest(ctx context.Context, body io.Reader, contentType string) (*Result, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	var b *Batch
	var err error
	switch mt {
	case "application/x-ndjson", "application/jsonl", "application/jsonlines", "application/x-jsonlines":
		b, err = ReadNDJSON(body)
	default:
		b, err = ReadJSON(body)
	}
	if err != nil {
		return nil, err
	}
	res := &Result{Errors: b.Errors.Listed, ErrorsNotListed: b.Errors.NotListed}
	if res.Errors == nil {
		res.Errors = []LineError{}
	}
	return res, s.save(ctx, b.Records, res)
}

// save stores records, counting them in res.
func (s *Service) save(ctx context.Context, records []*Record, res *Result) error {
	for start := 0; start < len(records); start += addChunk {
		chunk := records[start:min(start+addChunk, len(records))]
		n, err := s.store.Add(ctx, chunk, func(added []*Record) []Rollup { return Rollups(added, 1) })
		if err != nil {
			return err
		}
		res.Accepted += n
		res.Duplicates += len(chunk) - n
	}
	return nil
}

// ImportProgress is told of each file an import read.
type ImportProgress func(file string, res *Result)

// Import reads a JSONL file, or every suggestion_history.jsonl of a
// session_history tree, and stores its records, a chunk at a time
// (a file may hold any number); importing again adds nothing. Bad lines
// are reported with their files: the first ndjson.ListedErrors of each
// file, the others counted.
func (s *Service) Import(ctx context.Context, path string, progress ImportProgress) (*Result, []suggest.Warning, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, hone.FieldError("path", "cannot read %s: %v", path, err)
	}
	var files []string
	if info.IsDir() {
		err = filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (d.Name() == suggest.HistoryFile || strings.HasSuffix(d.Name(), ".jsonl")) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, nil, hone.FieldError("path", "cannot read %s: %v", path, err)
		}
	} else {
		files = []string{path}
	}
	total := &Result{Errors: []LineError{}}
	var warnings []suggest.Warning
	for _, file := range files {
		res, err := s.importFile(ctx, file)
		if err != nil {
			return total, warnings, err
		}
		total.Accepted += res.Accepted
		total.Duplicates += res.Duplicates
		total.ErrorsNotListed += res.ErrorsNotListed
		for _, e := range res.Errors {
			warnings = append(warnings, suggest.Warning{File: file, Line: e.Line, Message: strings.TrimPrefix(e.String(), fmt.Sprintf("line %d: ", e.Line))})
		}
		total.Errors = append(total.Errors, res.Errors...)
		if progress != nil {
			progress(file, res)
		}
	}
	return total, warnings, nil
}

// importFile stores the records of one JSONL file.
func (s *Service) importFile(ctx context.Context, file string) (*Result, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, hone.FieldError("path", "cannot read %s: %v", file, err)
	}
	defer f.Close()
	res := &Result{}
	var errs LineErrors
	chunk := make([]*Record, 0, addChunk)
	var saveErr error
	err = eachLine(f, func(line int, rec *Record, err error) error {
		if err != nil {
			errs.Add(lineError(line, err))
			return nil
		}
		if chunk = append(chunk, rec); len(chunk) == addChunk {
			saveErr, chunk = s.save(ctx, chunk, res), chunk[:0]
		}
		return saveErr
	})
	switch {
	case saveErr != nil:
		err = saveErr
	case err != nil:
		err = hone.FieldError("path", "cannot read %s: %v", file, err)
	default:
		err = s.save(ctx, chunk, res)
	}
	res.Errors, res.ErrorsNotListed = errs.Listed, errs.NotListed
	if res.Errors == nil {
		res.Errors = []LineError{}
	}
	return res, err
}

// Stats answers the spec's questions about the records the filter picks.
func (s *Service) Stats(ctx context.Context, f Filter) (*Stats, error) {
	rows, err := s.store.Rollups(ctx, f)
	if err != nil {
		return nil, err
	}
	return Compute(rows), nil
}

// Each calls fn with the records the filter picks, oldest first.
func (s *Service) Each(ctx context.Context, f Filter, fn func(*Record) error) error {
	return s.store.Each(ctx, f, fn)
}

// Forgotten is what Forget removed.
type Forgotten struct {
	Records     int      `json:"records"`
	Directories []string `json:"directories"`
}

// Forget removes a session's records from the database and its JSONL
// history (of one server, or of every server when server is ""); see
// forgetHistory.
func (s *Service) Forget(ctx context.Context, server, session string) (*Forgotten, error) {
	session, server = strings.TrimSpace(hone.CleanText(session)), strings.TrimSpace(hone.CleanText(server))
	if session == "" {
		return nil, hone.FieldError("session", "session is required: the session to forget")
	}
	n, err := s.store.Forget(ctx, server, session, func(removed []*Record) []Rollup { return Rollups(removed, -1) })
	if err != nil {
		return nil, err
	}
	out := &Forgotten{Records: n, Directories: []string{}}
	root := s.opts.HistoryRoot
	if root == "" {
		if root, err = suggest.DefaultRoot(); err != nil {
			return out, nil
		}
	}
	if out.Directories, err = s.forgetHistory(root, server, session); err != nil {
		return out, err
	}
	s.log.Info("suggestion session forgotten", "session", session, "server", server, "records", n, "directories", len(out.Directories))
	return out, nil
}
