package server_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/server"
)

// logBuffer is a log that tests read.
func logBuffer() (*slog.Logger, *bytes.Buffer) {
	var b bytes.Buffer
	return slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug})), &b
}

func TestWriteJSONRefusesWhatJSONCannotHold(t *testing.T) {
	log, logged := logBuffer()
	f := &server.Face{Prefix: "/api", Errors: server.JSONBody, Log: log, Routes: []server.Route{
		{Method: "GET", Path: "/inf", Handler: func(w http.ResponseWriter, r *http.Request) error {
			return server.WriteJSON(w, http.StatusOK, map[string]float64{"p95": math.Inf(1)})
		}},
		{Method: "GET", Path: "/nan", Handler: func(w http.ResponseWriter, r *http.Request) error {
			return server.WriteJSON(w, http.StatusCreated, []float64{math.NaN()})
		}},
		{Method: "GET", Path: "/ok", Handler: func(w http.ResponseWriter, r *http.Request) error {
			return server.WriteJSON(w, http.StatusOK, map[string]string{"a": "<b>"})
		}},
	}}
	srv := httptest.NewServer(f.Mux())
	defer srv.Close()
	for _, path := range []string{"/api/inf", "/api/nan"} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var got server.ErrorBody
		if res.StatusCode != http.StatusInternalServerError || json.Unmarshal(body, &got) != nil || got.Error.Code != hone.EINTERNAL {
			t.Errorf("GET %s: %d %q, want a 500 with an internal error body", path, res.StatusCode, body)
		}
		if !strings.Contains(logged.String(), "path="+strings.TrimPrefix(path, "")) {
			t.Errorf("GET %s: the failure is not logged: %q", path, logged.String())
		}
	}
	res, err := http.Get(srv.URL + "/api/ok")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(body) != `{"a":"<b>"}`+"\n" || res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("GET /api/ok: %d %q %q", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
}

func TestLogsNeverHoldAPathsCredential(t *testing.T) {
	const secret = "s3cr3t-t0ken-abcdefghijklmnop"
	log, logged := logBuffer()
	fail := func(w http.ResponseWriter, r *http.Request) error { return errors.New("database is down") }
	f := &server.Face{Errors: server.JSONBody, Log: log, Routes: []server.Route{
		{Method: "GET", Path: "/signin/{token}", Handler: fail},
		{Method: "GET", Path: "/w/{id}/join/{token}", Handler: fail},
		{Method: "GET", Path: "/sessions/{id}/export.csv", Handler: func(w http.ResponseWriter, r *http.Request) error {
			return server.Download(w, "x.csv", "text/csv", func(w io.Writer) error {
				_, _ = w.Write(bytes.Repeat([]byte("x"), 100<<10))
				return errors.New("database went away")
			})
		}},
		{Method: "GET", Path: "/{$}", Handler: fail},
	}}
	srv := httptest.NewServer(f.Mux())
	defer srv.Close()
	for _, tc := range []struct{ path, logged string }{
		{"/signin/" + secret, "path=/signin/{token}"},
		{"/w/ab12cd34/join/" + secret, "path=/w/ab12cd34/join/{token}"},
		{"/sessions/ab12cd34/export.csv?sig=" + secret + "&exp=1", "path=/sessions/ab12cd34/export.csv"},
		{"/?next=" + secret, "path=/ "},
	} {
		logged.Reset()
		res, err := http.Get(srv.URL + tc.path)
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		if !strings.Contains(logged.String(), tc.logged) {
			t.Errorf("GET %s: log %q does not show %s", tc.path, logged.String(), tc.logged)
		}
		if strings.Contains(logged.String(), secret) {
			t.Errorf("GET %s: the log holds the credential: %q", tc.path, logged.String())
		}
	}
}

func TestHosts(t *testing.T) {
	h := server.NewHosts("hone.example.com", "10.0.0.5", "[fd00::1]:8080", "")
	for host, want := range map[string]bool{
		"localhost":              true,
		"localhost:8080":         true,
		"LOCALHOST.:8080":        true,
		"app.localhost:8080":     true,
		"127.0.0.1:8080":         true,
		"127.1.2.3":              true,
		"[::1]:8080":             true,
		"hone.example.com":       true,
		"Hone.Example.com:443":   true,
		"10.0.0.5:8080":          true,
		"[fd00::1]:8080":         true,
		"evil.example":           false,
		"evil.example:8080":      false,
		"localhost.evil.example": false,
		"hone.example.com.evil":  false,
		"10.0.0.6:8080":          false,
		"":                       false,
		"0.0.0.0:8080":           false,
	} {
		if got := h.Allow(host); got != want {
			t.Errorf("Allow(%q) = %v, want %v", host, got, want)
		}
	}
	var none *server.Hosts
	if !none.Allow("evil.example") {
		t.Error("a nil *Hosts refuses a host")
	}
}

func TestCheckMediaType(t *testing.T) {
	jsonRoute := server.Route{}
	batch := server.Route{Accepts: append([]string{server.JSONType}, server.NDJSONTypes...)}
	for _, tc := range []struct {
		method, contentType, body string
		rt                        server.Route
		ok                        bool
	}{
		{"GET", "text/plain", "x", jsonRoute, true},
		{"HEAD", "", "", jsonRoute, true},
		{"POST", "application/json", "{}", jsonRoute, true},
		{"POST", "Application/JSON; charset=utf-8", "{}", jsonRoute, true},
		{"PATCH", "application/json", "{}", jsonRoute, true},
		{"POST", "", "", jsonRoute, true},
		{"DELETE", "", "", jsonRoute, true},
		{"POST", "", "{}", jsonRoute, false},
		{"POST", "text/plain", "{}", jsonRoute, false},
		{"POST", "text/plain;charset=UTF-8", "{}", jsonRoute, false},
		{"POST", "application/x-www-form-urlencoded", "a=1", jsonRoute, false},
		{"POST", "application/x-www-form-urlencoded", "", jsonRoute, false},
		{"POST", "multipart/form-data; boundary=x", "--x--", jsonRoute, false},
		{"PUT", "application/x-ndjson", "{}", jsonRoute, false},
		{"POST", "application/x-ndjson", "{}\n", batch, true},
		{"POST", "application/jsonl", "{}\n", batch, true},
		{"POST", "text/csv", "a,b", batch, false},
		{"POST", "not a media type", "{}", jsonRoute, false},
	} {
		var body io.Reader
		if tc.body != "" {
			body = strings.NewReader(tc.body)
		}
		r := httptest.NewRequest(tc.method, "/x", body)
		if tc.contentType != "" {
			r.Header.Set("Content-Type", tc.contentType)
		}
		err := server.CheckMediaType(tc.rt, r)
		if (err == nil) != tc.ok {
			t.Errorf("%s %q %q: %v, want ok %v", tc.method, tc.contentType, tc.body, err, tc.ok)
		}
		if err != nil && (hone.ErrorCode(err) != hone.EMEDIATYPE || hone.ErrorField(err) != "Content-Type" || server.Status(err) != 415) {
			t.Errorf("%s %q: error %v, want 415 naming Content-Type", tc.method, tc.contentType, err)
		}
	}
}

func TestBearerToken(t *testing.T) {
	for _, c := range []struct {
		header, token string
		ok            bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer  abc", "abc", true},
		{"Basic abc", "", false},
		{"Bearer", "", false},
		{"", "", false},
	} {
		if token, ok := server.BearerToken(c.header); token != c.token || ok != c.ok {
			t.Errorf("BearerToken(%q) = %q, %v", c.header, token, ok)
		}
	}
}
