package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// tap reads the upstream's answer for the reverse proxy, keeping what the
// turn needs (a bounded copy) and recording the exchange when the answer
// ends. A stream is read event by event; the usage chunk hone asked for is
// left out of what the caller gets.
type tap struct {
	p    *Proxy
	x    *exchange
	body io.ReadCloser
	sse  bool
	// keep is the answer so far (a plain answer, up to maxRecordBytes) or
	// the stream's event not yet complete.
	keep []byte
	over bool
	// out is what a stripped stream gives the caller next, from off.
	out []byte
	off int
	err error
}

// tap wraps res's body to record the exchange as it passes.
func (x *exchange) tap(p *Proxy, res *http.Response) io.ReadCloser {
	media, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	t := &tap{p: p, x: x, body: res.Body, sse: media == "text/event-stream" && res.StatusCode < 300}
	if !t.sse {
		x.stripUsage = false
		if res.ContentLength > 0 {
			t.keep = make([]byte, 0, min(res.ContentLength, preallocBytes))
		}
	}
	return t
}

func (t *tap) Read(b []byte) (int, error) {
	if !t.x.stripUsage {
		n, err := t.body.Read(b)
		if n > 0 {
			t.take(b[:n], false)
		}
		if err != nil {
			t.end(err)
		}
		return n, err
	}
	for {
		if t.off < len(t.out) {
			n := copy(b, t.out[t.off:])
			t.off += n
			return n, nil
		}
		t.out, t.off = t.out[:0], 0
		if t.err != nil {
			return 0, t.err
		}
		n, err := t.body.Read(b)
		if n > 0 {
			t.take(b[:n], true)
		}
		if err != nil {
			t.end(err)
			t.err = err
		}
	}
}

// take keeps what was read: a plain answer up to its bound, a stream's
// complete events handled (and, when filter, the ones the caller gets
// added to out).
func (t *tap) take(b []byte, filter bool) {
	if !t.sse {
		if len(t.keep)+len(b) > maxRecordBytes {
			t.over = true
			return
		}
		t.keep = append(t.keep, b...)
		return
	}
	t.keep = append(t.keep, b...)
	start := 0
	for {
		end := eventEnd(t.keep[start:])
		if end < 0 {
			break
		}
		ev := t.keep[start : start+end]
		if !t.x.event(ev) && filter {
			t.out = append(t.out, ev...)
		}
		start += end
	}
	t.keep = t.keep[:copy(t.keep, t.keep[start:])]
	if len(t.keep) > maxRecordBytes {
		if filter {
			t.out = append(t.out, t.keep...)
		}
		t.keep = t.keep[:0]
	}
}

// eventEnd is the length of the first complete event of an SSE stream in
// b, its blank line included; -1 when b holds none.
func eventEnd(b []byte) int {
	i := bytes.Index(b, []byte("\n\n"))
	if j := bytes.Index(b, []byte("\r\n\r\n")); j >= 0 && (i < 0 || j < i) {
		return j + 4
	}
	if i < 0 {
		return -1
	}
	return i + 2
}

// end records the exchange when the answer ended, well or not.
func (t *tap) end(err error) {
	x := t.x
	if !errors.Is(err, io.EOF) {
		t.p.finish(x, "the upstream's answer broke off: "+err.Error())
		return
	}
	if t.sse {
		if len(bytes.TrimSpace(t.keep)) > 0 {
			if !x.event(t.keep) && x.stripUsage {
				t.out = append(t.out, t.keep...)
			}
			t.keep = nil
		}
		if !x.done {
			t.p.finish(x, "the stream ended before it was complete")
			return
		}
		t.p.finish(x, x.failure)
		return
	}
	if x.status >= 400 {
		t.p.finish(x, upstreamFailure(x.status, t.keep))
		return
	}
	if t.over {
		x.text.Reset()
		x.addText(fmt.Sprintf("(an answer larger than %d MiB, not recorded)", maxRecordBytes>>20))
	} else {
		x.answer(t.keep)
	}
	t.p.finish(x, x.failure)
}

// Close closes the upstream's answer; an answer the caller stopped reading
// is recorded as failed.
func (t *tap) Close() error {
	err := t.body.Close()
	t.p.finish(t.x, "the caller went away before the answer ended")
	return err
}

// upstreamFailure is the failure of an upstream's error answer: its status
// and message.
func upstreamFailure(status int, body []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
		Msg   string          `json:"message"`
	}
	msg := ""
	if json.Unmarshal(body, &e) == nil {
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &obj) == nil && obj.Message != "" {
			msg = obj.Message
		} else if json.Unmarshal(e.Error, &msg) != nil {
			msg = e.Msg
		}
	}
	if msg == "" {
		msg = strings.TrimSpace(string(body))
		if r := []rune(msg); len(r) > 2000 {
			msg = string(r[:2000]) + "…"
		}
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	return fmt.Sprintf("the upstream answered %d: %s", status, msg)
}
