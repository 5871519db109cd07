package suggest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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
// a crash, or any other) is skipped and returned as a warning; blank lines
// are skipped silently. An error of fn, or of reading, stops it.
func ReadJSONL(r io.Reader, fn func(line int, rec *Record) error) ([]Warning, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var warnings []Warning
	for n := 1; ; n++ {
		line, err := readLine(br)
		if len(bytes.TrimSpace(line)) > 0 {
			var rec Record
			if jerr := json.Unmarshal(line, &rec); jerr != nil {
				msg := "not a suggestion record: " + jerr.Error()
				if err == io.EOF && line[len(line)-1] != '\n' {
					msg = "torn last line (the writer stopped mid-line): " + jerr.Error()
				}
				warnings = append(warnings, Warning{Line: n, Message: msg})
			} else if ferr := fn(n, &rec); ferr != nil {
				return warnings, ferr
			}
		}
		if err == io.EOF {
			return warnings, nil
		} else if err != nil {
			return warnings, err
		}
	}
}

// readLine reads one line with its newline, up to MaxLine bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
		if len(line) > MaxLine {
			return line, fmt.Errorf("a line is longer than %d bytes", MaxLine)
		}
	}
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
