// Package ndjson reads newline-delimited JSON bodies one bounded line at a
// time, for every import and batch endpoint that takes them.
package ndjson

import (
	"bufio"
	"bytes"
	"io"

	"github.com/honehq/hone"
)

// Reader reads the lines of an NDJSON body. A line longer than its bound is
// skipped whole, up to and including its newline, and reported as one error
// at its own line number, so the lines after it keep their numbers.
type Reader struct {
	br   *bufio.Reader
	max  int
	line int
	long []byte
}

// NewReader reads r with lines of at most max bytes, the newline and any
// carriage return before it not counted.
func NewReader(r io.Reader, max int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Line is the number of the line Next returned last, from 1.
func (r *Reader) Line() int { return r.line }

// Next returns the next line that is not blank, trimmed of white space, and
// its number. The bytes are valid until the next call. At the end of the
// body it returns io.EOF. A line over the bound returns a *hone.Error with
// code ETOOLARGE naming the bound, and reading can go on with the next line;
// any other error is the body's and ends the reading.
func (r *Reader) Next() (int, []byte, error) {
	for {
		data, tooLong, err := r.readLine()
		if err != nil && err != io.EOF {
			return r.line, nil, err
		}
		if err == io.EOF && data == nil && !tooLong {
			return r.line, nil, io.EOF
		}
		if tooLong {
			return r.line, nil, hone.Errorf(hone.ETOOLARGE, "line %d is longer than the limit of %d bytes; it was skipped", r.line, r.max)
		}
		if t := bytes.TrimSpace(data); len(t) > 0 {
			return r.line, t, nil
		}
	}
}

// readLine reads one line. When the line is over the bound it reads on to
// its end without keeping it and reports tooLong. At the end of the body it
// returns io.EOF, with the last line's bytes when it had no newline.
func (r *Reader) readLine() (data []byte, tooLong bool, err error) {
	r.long = r.long[:0]
	n := 0
	for {
		chunk, err := r.br.ReadSlice('\n')
		n += len(chunk)
		switch {
		case tooLong:
		case n-1 > r.max && err == bufio.ErrBufferFull:
			tooLong, r.long = true, r.long[:0]
		case len(r.long) == 0 && err != bufio.ErrBufferFull:
			data = chunk
		default:
			r.long = append(r.long, chunk...)
			data = r.long
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			return nil, false, err
		}
		if n == 0 {
			return nil, false, io.EOF
		}
		r.line++
		if !tooLong && len(bytes.TrimSuffix(bytes.TrimSuffix(data, []byte("\n")), []byte("\r"))) > r.max {
			tooLong = true
		}
		if tooLong {
			data = nil
		}
		return data, tooLong, err
	}
}

// Bounds every batch endpoint shares, so that an answer stays proportional
// to its request.
const (
	// MaxBatchItems bounds the items (lines, or array elements) of one batch
	// request; a larger batch is refused whole, naming the bound.
	MaxBatchItems = 10_000
	// ListedErrors is how many item errors an answer lists in full; the rest
	// are counted.
	ListedErrors = 100
)
