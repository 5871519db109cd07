package suggestions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/ndjson"
)

// lineError is err as the error of a line.
func lineError(line int, err error) LineError {
	return LineError{Line: line, Field: hone.ErrorField(err), Message: hone.ErrorMessage(err)}
}

// LineErrors are the lines refused: the first ndjson.ListedErrors in
// full, the others counted, so that an answer stays small whatever the
// body held.
type LineErrors struct {
	Listed    []LineError
	NotListed int
}

// Add counts e, and lists it while the list has room.
func (l *LineErrors) Add(e LineError) {
	if len(l.Listed) < ndjson.ListedErrors {
		l.Listed = append(l.Listed, e)
	} else {
		l.NotListed++
	}
}

// Len counts the errors, listed or not.
func (l *LineErrors) Len() int { return len(l.Listed) + l.NotListed }

// Batch is what a body of records holds: the records that parse, in order,
// and the lines that do not.
type Batch struct {
	Records []*Record
	Errors  LineErrors
	// Lines counts the lines (or array elements) read, blank ones aside.
	Lines int
}

// tooMany is the error of a body of more records than a batch may hold.
func tooMany() error {
	return hone.Errorf(hone.ETOOLARGE, "the body holds more than %d records: send at most %d in one request (nothing was stored)",
		ndjson.MaxBatchItems, ndjson.MaxBatchItems)
}

// eachLine reads one record per line of r, calling fn with each line's
// number and its record or why it was refused. Blank lines are skipped; a
// line longer than MaxRecord is refused whole, at its own number. An
// error of fn, or of reading, stops it.
func eachLine(r io.Reader, fn func(line int, rec *Record, err error) error) error {
	lr := ndjson.NewReader(r, MaxRecord)
	for {
		n, data, err := lr.Next()
		switch {
		case err == io.EOF:
			return nil
		case hone.ErrorCode(err) == hone.ETOOLARGE:
			err = hone.FieldError("", "the line is longer than a record may be (%d bytes); it was skipped whole", MaxRecord)
		case err != nil:
			return err
		}
		var rec *Record
		if err == nil {
			if rec, err = Parse(data); err == nil {
				rec.Raw = bytes.Clone(rec.Raw)
			}
		}
		if ferr := fn(n, rec, err); ferr != nil {
			return ferr
		}
	}
}

// ReadNDJSON reads one record per line, at most ndjson.MaxBatchItems
// (more is an ETOOLARGE error, read no further); blank lines are skipped,
// a bad line is counted and the others are kept.
func ReadNDJSON(r io.Reader) (*Batch, error) {
	b := &Batch{}
	errFull := errors.New("full")
	err := eachLine(r, func(line int, rec *Record, err error) error {
		if b.Lines++; b.Lines > ndjson.MaxBatchItems {
			return errFull
		}
		if err != nil {
			b.Errors.Add(lineError(line, err))
		} else {
			b.Records = append(b.Records, rec)
		}
		return nil
	})
	if err == errFull {
		return nil, tooMany()
	}
	return b, err
}

// ReadJSON reads one record (an object) or several (an array of at most
// ndjson.MaxBatchItems); an array's element n is "line" n.
func ReadJSON(r io.Reader) (*Batch, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimSpace(data)
	b := &Batch{}
	if len(data) > 0 && data[0] == '[' {
		// Element by element, so that a body of more elements than a
		// batch may hold is refused without reading them all.
		notArray := func(err error) error {
			return hone.FieldError("", "the body is not a JSON array of records: %v", err)
		}
		d := json.NewDecoder(bytes.NewReader(data))
		if _, err := d.Token(); err != nil {
			return nil, notArray(err)
		}
		for d.More() {
			if b.Lines == ndjson.MaxBatchItems {
				return nil, tooMany()
			}
			var item json.RawMessage
			if err := d.Decode(&item); err != nil {
				return nil, notArray(err)
			}
			b.Lines++
			if rec, err := Parse(item); err != nil {
				b.Errors.Add(lineError(b.Lines, err))
			} else {
				b.Records = append(b.Records, rec)
			}
		}
		if _, err := d.Token(); err != nil {
			return nil, notArray(err)
		}
		if _, err := d.Token(); err != io.EOF {
			return nil, notArray(fmt.Errorf("data after the array"))
		}
		return b, nil
	}
	if len(data) == 0 || data[0] != '{' {
		return nil, hone.FieldError("", "the body must be a record (a JSON object), an array of them, or application/x-ndjson")
	}
	b.Lines = 1
	if rec, err := Parse(data); err != nil {
		b.Errors.Add(lineError(1, err))
	} else {
		b.Records = append(b.Records, rec)
	}
	return b, nil
}
