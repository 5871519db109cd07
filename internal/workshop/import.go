package workshop

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/ndjson"
)

// Import formats.
const (
	FormatJSON  = "json"  // a JSON array of traces
	FormatJSONL = "jsonl" // one trace per line (NDJSON)
	FormatCSV   = "csv"   // RFC 4180, header row with input, output and optionally id, context, metadata
)

// MaxImportTraces bounds one import.
const MaxImportTraces = 100_000

// ParsedTrace is a valid trace of an import file with the line it starts on.
type ParsedTrace struct {
	Line int
	TraceInput
}

// traceFields are the properties of a trace in a JSON file and the columns
// of a CSV file.
var traceFields = []string{"id", "input", "output", "context", "metadata"}

// traceIDPattern is the form of a trace id a file gives: the same as a turn
// id, so that a trace can name the turn it came from.
var traceIDPattern = regexp.MustCompile(capture.TurnIDPattern)

// utf8BOM is the byte order mark some editors put at the start of a UTF-8 file.
var utf8BOM = []byte("\xef\xbb\xbf")

// FormatOf picks the format from a file name's extension (.json, .jsonl, .ndjson, .csv) or a Content-Type
// (application/json, application/x-ndjson, application/jsonl, text/csv), name first; "" when neither tells.
func FormatOf(name, contentType string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return FormatJSON
	case ".jsonl", ".ndjson":
		return FormatJSONL
	case ".csv":
		return FormatCSV
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt, _, _ = strings.Cut(contentType, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
	}
	switch mt {
	case "application/json":
		return FormatJSON
	case "application/x-ndjson", "application/jsonl":
		return FormatJSONL
	case "text/csv":
		return FormatCSV
	}
	return ""
}

// ParseTraces reads every trace of r in format. It returns the valid traces and, separately, every invalid
// one as a LineError (line numbers from 1; the CSV header is line 1; for a JSON array the line where the
// element starts). err is for a file that cannot be read as that format at all (a JSON syntax error that
// stops the array, a CSV without the input or output column, an unknown format, a read error, more than
// MaxImportTraces traces) — then nothing is returned.
func ParseTraces(r io.Reader, format string) (traces []ParsedTrace, bad []LineError, err error) {
	var parse func(*parser, *bufio.Reader) error
	switch format {
	case FormatJSON:
		parse = (*parser).parseJSON
	case FormatJSONL:
		parse = (*parser).parseJSONL
	case FormatCSV:
		parse = (*parser).parseCSV
	default:
		return nil, nil, hone.FieldError("format", "unknown import format %q: use %s, %s or %s",
			format, FormatJSON, FormatJSONL, FormatCSV)
	}
	br := bufio.NewReader(r)
	if b, err := br.Peek(len(utf8BOM)); bytes.Equal(b, utf8BOM) {
		_, _ = br.Discard(len(utf8BOM))
	} else if err != nil && err != io.EOF {
		return nil, nil, readError(err)
	}
	p := &parser{seen: map[string]int{}}
	if err := parse(p, br); err != nil {
		return nil, nil, err
	}
	return p.traces, p.bad, nil
}

// parser collects the traces of one file.
type parser struct {
	traces []ParsedTrace
	bad    []LineError
	// seen maps each well-formed id to the line that first gave it.
	seen map[string]int
}

// add records the trace starting on line, or its error, and fails the file
// once it holds more than MaxImportTraces traces.
func (p *parser) add(line int, in TraceInput, err error) error {
	if len(p.traces)+len(p.bad) >= MaxImportTraces {
		return hone.Errorf(hone.ETOOLARGE, "the file holds more than %d traces; split it into several imports", MaxImportTraces)
	}
	if err != nil {
		p.bad = append(p.bad, LineError{Line: line, Field: hone.ErrorField(err), Message: hone.ErrorMessage(err)})
		return nil
	}
	p.traces = append(p.traces, ParsedTrace{Line: line, TraceInput: in})
	return nil
}

// checkID validates an id ("" is none) and remembers it, so that the same id
// later in the file is refused even when the line giving it first has another
// error: importing one of the two would silently pick a winner.
func (p *parser) checkID(line int, id string) error {
	if id == "" {
		return nil
	}
	if hone.Chars(id) > capture.MaxTurnIDLength || !traceIDPattern.MatchString(id) {
		return hone.FieldError("id", "id must be 1 to %d letters, digits, '.', '_', ':' or '-', starting with a letter or digit",
			capture.MaxTurnIDLength)
	}
	if first, ok := p.seen[id]; ok {
		return hone.FieldError("id", "id %q is given twice in the file (first on line %d)", id, first)
	}
	p.seen[id] = line
	return nil
}

// parseJSON reads a JSON array of traces. The whole file is read first, and
// each element is decoded on its own, so that its line and the line of a
// syntax error are counted from offsets in the file.
func (p *parser) parseJSON(r *bufio.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return readError(err)
	}
	lines := lineCounter{data: data, line: 1}
	pos := skipSpace(data, 0)
	switch {
	case pos == len(data):
		return hone.Errorf(hone.EINVALID, "the file is empty; a JSON import file holds an array of traces")
	case data[pos] != '[':
		raw, _, err := decodeValue(data, pos, "value")
		if err != nil {
			return err
		}
		return hone.Errorf(hone.EINVALID,
			"a JSON import file must hold an array of traces, [{\"input\": …, \"output\": …}, …], not %s; for one trace per line use %s",
			jsonKind(raw), FormatJSONL)
	}
	pos = skipSpace(data, pos+1)
	if pos < len(data) && data[pos] == ']' {
		return afterArray(data, pos+1)
	}
	for {
		if pos == len(data) {
			return hone.Errorf(hone.EINVALID, "the file is not valid JSON: it ends before the array is closed")
		}
		line := lines.at(pos)
		raw, end, err := decodeValue(data, pos, "trace")
		if err != nil {
			return err
		}
		in, terr := p.jsonTrace(line, raw)
		if err := p.add(line, in, terr); err != nil {
			return err
		}
		pos = skipSpace(data, end)
		switch {
		case pos == len(data):
			return hone.Errorf(hone.EINVALID, "the file is not valid JSON: it ends before the array is closed")
		case data[pos] == ']':
			return afterArray(data, pos+1)
		case data[pos] != ',':
			return hone.Errorf(hone.EINVALID, "the file is not valid JSON (line %d): a comma or ] must follow the trace starting on line %d",
				lines.at(pos), line)
		}
		pos = skipSpace(data, pos+1)
		if pos < len(data) && data[pos] == ']' {
			return hone.Errorf(hone.EINVALID, "the file is not valid JSON (line %d): a comma must not precede the closing ]",
				lines.at(pos))
		}
	}
}

// afterArray checks that nothing but white space follows the array, which
// ends at pos.
func afterArray(data []byte, pos int) error {
	if pos = skipSpace(data, pos); pos < len(data) {
		return hone.Errorf(hone.EINVALID, "the file is not valid JSON (line %d): something follows the array of traces",
			lineAt(data, pos))
	}
	return nil
}

// decodeValue reads the JSON value starting at data[pos] and returns it with
// the offset where it ends; what names the value in messages.
func decodeValue(data []byte, pos int, what string) (json.RawMessage, int, error) {
	dec := json.NewDecoder(bytes.NewReader(data[pos:]))
	var raw json.RawMessage
	err := dec.Decode(&raw)
	var syntax *json.SyntaxError
	switch {
	case err == nil:
		return raw, pos + int(dec.InputOffset()), nil
	case errors.As(err, &syntax):
		at := min(pos+max(int(syntax.Offset)-1, 0), len(data))
		return nil, 0, hone.Errorf(hone.EINVALID, "the file is not valid JSON (line %d): %v", lineAt(data, at), err)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return nil, 0, hone.Errorf(hone.EINVALID, "the file is not valid JSON: it ends inside the %s starting on line %d",
			what, lineAt(data, pos))
	}
	return nil, 0, hone.Errorf(hone.EINVALID, "the file is not valid JSON: %v", err)
}

// skipSpace returns the offset of the first byte from pos on that is not
// JSON white space.
func skipSpace(data []byte, pos int) int {
	for pos < len(data) && strings.IndexByte(" \t\r\n", data[pos]) >= 0 {
		pos++
	}
	return pos
}

// lineAt returns the line, from 1, of the byte of data at offset off.
func lineAt(data []byte, off int) int { return 1 + bytes.Count(data[:off], []byte("\n")) }

// lineCounter is lineAt for offsets that only grow, counting on from the
// last one instead of from the start of a large file.
type lineCounter struct {
	data    []byte
	counted int
	line    int
}

// at returns the line of the byte at offset off, off being at least the
// offset of the call before.
func (c *lineCounter) at(off int) int {
	c.line += bytes.Count(c.data[c.counted:off], []byte("\n"))
	c.counted = off
	return c.line
}

// MaxImportLineBytes bounds a line of a JSONL import: room for an input
// and an output at the MaxTextLength limit, with their context and
// metadata. A longer line is one invalid trace, skipped whole without being
// held in memory.
const MaxImportLineBytes = 4 << 20

// parseJSONL reads one trace per line; a line that is not valid JSON, or
// longer than MaxImportLineBytes, is an error of that line only.
func (p *parser) parseJSONL(br *bufio.Reader) error {
	body := &readErrors{r: br}
	lines := ndjson.NewReader(body, MaxImportLineBytes)
	for {
		line, text, err := lines.Next()
		switch {
		case err == io.EOF:
			return nil
		case err != nil && body.err != nil:
			return readError(body.err)
		case err != nil:
			long := hone.Errorf(hone.EINVALID, "the line is longer than %d bytes, the bound of a JSONL line; it was skipped", MaxImportLineBytes)
			if err := p.add(line, TraceInput{}, long); err != nil {
				return err
			}
			continue
		}
		var raw json.RawMessage
		in, terr := TraceInput{}, json.Unmarshal(text, &raw)
		if terr != nil {
			terr = hone.Errorf(hone.EINVALID, "the line is not valid JSON: %v", terr)
		} else {
			in, terr = p.jsonTrace(line, raw)
		}
		if err := p.add(line, in, terr); err != nil {
			return err
		}
	}
}

// readErrors keeps the error of the reader it reads, so that it is told
// apart from the errors of the lines read from it.
type readErrors struct {
	r   io.Reader
	err error
}

func (r *readErrors) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	if err != nil && err != io.EOF {
		r.err = err
	}
	return n, err
}

// jsonTrace reads one trace of a JSON or JSONL file, raw being valid JSON.
// Its properties are matched exactly, as the documentation spells them.
func (p *parser) jsonTrace(line int, raw json.RawMessage) (TraceInput, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return TraceInput{}, hone.Errorf(hone.EINVALID, "a trace must be a JSON object, not %s", jsonKind(raw))
	}
	var in TraceInput
	if v, ok := m["id"]; ok && !isNull(v) {
		var id string
		if err := json.Unmarshal(v, &id); err != nil {
			return TraceInput{}, hone.FieldError("id", "id must be a string, not %s", jsonKind(v))
		}
		in.ID = hone.CleanText(id)
	}
	if err := p.checkID(line, in.ID); err != nil {
		return TraceInput{}, err
	}
	var unknown []string
	for k := range m {
		if !slices.Contains(traceFields, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return TraceInput{}, hone.FieldError(shorten(unknown[0]), "unknown %s %s; a trace has the properties %s",
			plural(len(unknown), "property", "properties"), nameList(unknown), fieldHint)
	}
	for _, f := range []struct {
		name string
		to   *json.RawMessage
	}{{"input", &in.Input}, {"output", &in.Output}} {
		v := m[f.name]
		if len(v) == 0 || isNull(v) || blankString(v) {
			return TraceInput{}, hone.FieldError(f.name, "%s is required", f.name)
		}
		*f.to = compactJSON(v)
	}
	if v := m["context"]; len(v) > 0 && !isNull(v) {
		in.Context = compactJSON(v)
	}
	if v := m["metadata"]; len(v) > 0 && !isNull(v) {
		if v[0] != '{' {
			return TraceInput{}, hone.FieldError("metadata", "metadata must be a JSON object, not %s", jsonKind(v))
		}
		in.Metadata = compactJSON(v)
	}
	return in, nil
}

// csvColumns maps each column name of a CSV header to its index.
type csvColumns map[string]int

// parseCSV reads an RFC 4180 file whose first row names the columns. A
// syntax error (a stray quote) fails the file: the reader cannot tell where
// the rows after it start.
func (p *parser) parseCSV(r *bufio.Reader) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err == io.EOF {
		return hone.Errorf(hone.EINVALID, "the file is empty; the first row of a CSV file names the columns: %s",
			fieldHint)
	}
	if err != nil {
		return csvFileError(err)
	}
	cols, err := readHeader(header)
	if err != nil {
		return err
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return csvFileError(err)
		}
		line, _ := cr.FieldPos(0)
		in, terr := p.csvTrace(line, cols, len(header), rec)
		if err := p.add(line, in, terr); err != nil {
			return err
		}
	}
}

// fieldHint lists the fields of a trace, for messages.
const fieldHint = "input, output and optionally id, context, metadata"

// readHeader reads the column names, in any case and with spaces around them.
func readHeader(header []string) (csvColumns, error) {
	cols := csvColumns{}
	var unknown []string
	for i, name := range header {
		name = strings.ToLower(strings.TrimSpace(hone.CleanText(name)))
		switch {
		case name == "":
			return nil, hone.Errorf(hone.EINVALID, "column %d of the CSV header has no name; the columns are %s",
				i+1, fieldHint)
		case !slices.Contains(traceFields, name):
			unknown = append(unknown, name)
		case hasKey(cols, name):
			return nil, hone.Errorf(hone.EINVALID, "the CSV header names the column %q twice", name)
		}
		cols[name] = i
	}
	if len(unknown) > 0 {
		return nil, hone.Errorf(hone.EINVALID, "the CSV header has the unknown %s %s; the columns are %s",
			plural(len(unknown), "column", "columns"), nameList(unknown), fieldHint)
	}
	for _, name := range []string{"input", "output"} {
		if !hasKey(cols, name) {
			return nil, hone.Errorf(hone.EINVALID, "the CSV header has no %q column; the columns are %s", name,
				fieldHint)
		}
	}
	return cols, nil
}

func hasKey(cols csvColumns, name string) bool {
	_, ok := cols[name]
	return ok
}

// csvTrace reads one row of a CSV file. An id cell is trimmed, as
// spreadsheets pad cells; the other cells are kept as written.
func (p *parser) csvTrace(line int, cols csvColumns, width int, rec []string) (TraceInput, error) {
	if len(rec) != width {
		return TraceInput{}, hone.Errorf(hone.EINVALID, "the row has %d %s but the header has %d columns",
			len(rec), plural(len(rec), "cell", "cells"), width)
	}
	cell := func(name string) string {
		if i, ok := cols[name]; ok {
			return hone.CleanText(rec[i])
		}
		return ""
	}
	var in TraceInput
	in.ID = strings.TrimSpace(cell("id"))
	if err := p.checkID(line, in.ID); err != nil {
		return TraceInput{}, err
	}
	for _, f := range []struct {
		name string
		to   *json.RawMessage
	}{{"input", &in.Input}, {"output", &in.Output}} {
		c := cell(f.name)
		if strings.TrimSpace(c) == "" {
			return TraceInput{}, hone.FieldError(f.name, "%s is required", f.name)
		}
		*f.to = cellJSON(c)
	}
	if c := cell("context"); strings.TrimSpace(c) != "" {
		in.Context = cellJSON(c)
	}
	if c := strings.TrimSpace(cell("metadata")); c != "" && c != "null" {
		if c[0] != '{' || !json.Valid([]byte(c)) {
			return TraceInput{}, hone.FieldError("metadata", "metadata must be a JSON object, such as {\"source\": \"prod\"}")
		}
		in.Metadata = compactJSON([]byte(c))
	}
	return in, nil
}

// cellJSON is the JSON value of a CSV cell: the JSON object or array it
// holds, or else a JSON string of its text.
func cellJSON(c string) json.RawMessage {
	if t := strings.TrimSpace(c); t != "" && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)) {
		return compactJSON([]byte(t))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(c)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// csvFileError explains why a CSV file cannot be read.
func csvFileError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		row := ""
		if pe.StartLine != pe.Line {
			row = fmt.Sprintf(" (in the row starting on line %d)", pe.StartLine)
		}
		return hone.Errorf(hone.EINVALID,
			"the file is not valid CSV: line %d, column %d: %v%s; a cell holding a quote must be quoted, with the quote doubled",
			pe.Line, pe.Column, pe.Err, row)
	}
	return readError(err)
}

// readError is the error of a reader that failed; the cause stays
// reachable with errors.As, such as an *http.MaxBytesError.
func readError(err error) error {
	return fmt.Errorf("reading the import file: %w", err)
}

// nameList quotes names given in a file for a message: at most five, each
// shortened, since the file can hold anything.
func nameList(names []string) string {
	quoted := make([]string, 0, 5)
	for _, n := range names[:min(len(names), 5)] {
		quoted = append(quoted, fmt.Sprintf("%q", shorten(n)))
	}
	list := strings.Join(quoted, ", ")
	if len(names) > 5 {
		list += fmt.Sprintf(" and %d more", len(names)-5)
	}
	return list
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// shorten cuts a name given in a file to 64 characters, for messages.
func shorten(s string) string {
	s = hone.CleanText(s)
	if hone.Chars(s) <= 64 {
		return s
	}
	return string([]rune(s)[:63]) + "…"
}

// compactJSON is valid JSON v without insignificant space and with what no
// database can store replaced (see hone.CleanJSON).
func compactJSON(v []byte) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return hone.CleanJSON(bytes.Clone(v))
	}
	return hone.CleanJSON(b.Bytes())
}

func isNull(v []byte) bool { return string(v) == "null" }

// blankString reports whether v is a JSON string of only white space.
func blankString(v []byte) bool {
	var s string
	return v[0] == '"' && json.Unmarshal(v, &s) == nil && strings.TrimSpace(s) == ""
}

// jsonKind names the type of the JSON value v, for messages.
func jsonKind(v []byte) string {
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "true or false"
	case 'n':
		return "null"
	}
	return "a number"
}
