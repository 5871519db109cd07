package suggest

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/ndjson"
)

// MaxLine bounds one JSONL line, in bytes.
const MaxLine = 64 << 20

// Warning is a line a reader skipped, and why.
type Warning struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

func (w Warning) String() string {
	if w.File != "" {
		return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Message)
	}
	return fmt.Sprintf("line %d: %s", w.Line, w.Message)
}

// ReadJSONL reads records from a JSONL stream, calling fn with each and its
// line number (from 1). A line that is not a record (a torn last line after
// a crash, a line longer than MaxLine, or any other) is skipped whole and
// returned as a warning, and the lines after it keep their numbers; blank
// lines are skipped silently. An error of fn, or of reading, stops it.
func ReadJSONL(r io.Reader, fn func(line int, rec *Record) error) ([]Warning, error) {
	tail := &lastByte{r: r}
	lr := ndjson.NewReader(tail, MaxLine)
	var warnings []Warning
	torn := -1 // the warning of the last line read, when it was not a record
	for {
		n, data, err := lr.Next()
		switch {
		case err == io.EOF:
			if torn >= 0 && warnings[torn].Line == lr.Line() && tail.last != '\n' {
				warnings[torn].Message = "torn last line (the writer stopped mid-line): " + strings.TrimPrefix(warnings[torn].Message, notARecord)
			}
			return warnings, nil
		case hone.ErrorCode(err) == hone.ETOOLARGE:
			warnings = append(warnings, Warning{Line: n, Message: fmt.Sprintf("a line longer than %d bytes, skipped", MaxLine)})
			torn = -1
			continue
		case err != nil:
			return warnings, err
		}
		torn = -1
		var rec Record
		if jerr := json.Unmarshal(data, &rec); jerr != nil {
			torn = len(warnings)
			warnings = append(warnings, Warning{Line: n, Message: notARecord + jerr.Error()})
		} else if ferr := fn(n, &rec); ferr != nil {
			return warnings, ferr
		}
	}
}

const notARecord = "not a suggestion record: "

// lastByte passes a reader on and keeps the last byte it gave.
type lastByte struct {
	r    io.Reader
	last byte
}

func (l *lastByte) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if n > 0 {
		l.last = p[n-1]
	}
	return n, err
}

// Walk reads every suggestion_history.jsonl below root (a whole
// session_history tree), or root itself when it is a file, calling fn
// with each record, its file and line. Warnings name their files.
func Walk(root string, fn func(file string, line int, rec *Record) error) ([]Warning, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	var files []string
	if info.IsDir() {
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && d.Name() == HistoryFile {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	} else {
		files = []string{root}
	}
	var warnings []Warning
	for _, path := range files {
		w, err := readFile(path, fn)
		warnings = append(warnings, w...)
		if err != nil {
			return warnings, err
		}
	}
	return warnings, nil
}

func readFile(path string, fn func(file string, line int, rec *Record) error) ([]Warning, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	w, err := ReadJSONL(f, func(line int, rec *Record) error { return fn(path, line, rec) })
	for i := range w {
		w[i].File = path
	}
	if err != nil {
		return w, fmt.Errorf("%s: %w", path, err)
	}
	return w, nil
}
