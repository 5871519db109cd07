package server

import (
	"bufio"
	"errors"
	"io"
	"net/http"
)

// sentWriter notes whether any byte reached the client.
type sentWriter struct {
	w    http.ResponseWriter
	sent bool
}

func (s *sentWriter) Write(p []byte) (int, error) {
	s.sent = true
	return s.w.Write(p)
}

// flushWriter flushes the buffered response to the client when asked, so a
// long download streams instead of waiting for its end.
type flushWriter struct {
	*bufio.Writer
	w *sentWriter
}

// Flush sends what is buffered.
func (f flushWriter) Flush() {
	_ = f.Writer.Flush()
	if fl, ok := f.w.w.(http.Flusher); ok {
		fl.Flush()
	}
}

// abortedError is a failure after part of a response was sent.
type abortedError struct{ err error }

func (e *abortedError) Error() string { return "response cut short: " + e.err.Error() }
func (e *abortedError) Unwrap() error { return e.err }

// Download streams a file named filename of contentType that write
// produces. An error before anything was sent is returned as is, to be
// answered like any other; after that, the status can no longer change, and
// WriteError logs it and breaks the connection, so the client sees the
// download fail rather than a file cut short.
func Download(w http.ResponseWriter, filename, contentType string, write func(io.Writer) error) error {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	h.Set("Cache-Control", "private, no-store")
	sw := &sentWriter{w: w}
	bw := flushWriter{Writer: bufio.NewWriterSize(sw, 64<<10), w: sw}
	err := write(bw)
	if err == nil {
		err = bw.Writer.Flush()
	}
	if err == nil {
		return nil
	}
	if !sw.sent {
		h.Del("Content-Disposition")
		h.Del("Cache-Control")
		return err
	}
	return &abortedError{err}
}

// aborted reports whether err is a failure after part of the response went out.
func aborted(err error) bool {
	var a *abortedError
	return errors.As(err, &a)
}
