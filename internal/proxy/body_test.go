package proxy

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestReadBodyReservesOnlyWhatArrives(t *testing.T) {
	for _, c := range []struct {
		name      string
		announced int64
		body      string
		maxCap    int
	}{
		{"announced and sent", 300, strings.Repeat("x", 300), 300 + bytes.MinRead},
		{"the most announced, little sent", MaxRequestBytes, "{}", preallocBytes + bytes.MinRead},
		{"unknown length", -1, "{}", 2 * bytes.MinRead},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, PathChat, strings.NewReader(c.body))
			r.ContentLength = c.announced
			body, err := readBody(httptest.NewRecorder(), r)
			if err != nil || string(body) != c.body {
				t.Fatalf("read %q, %v", body, err)
			}
			if cap(body) > c.maxCap {
				t.Errorf("reserved %d bytes for a body of %d announced as %d, want at most %d", cap(body), len(c.body), c.announced, c.maxCap)
			}
		})
	}
}
