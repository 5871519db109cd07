package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/config"
)

// Links hone makes while answering a request start with the address the
// request came to (a browser on localhost gets localhost links, where its
// cookies live), HONE_PUBLIC_URL wins over it, and a started server notes
// its address in the database for commands run elsewhere.
func TestLinksFollowTheRequestsHost(t *testing.T) {
	for _, tc := range []struct {
		name, public, host, want string
	}{
		{"the request's host", "", "localhost", "http://localhost:"},
		{"the address dialled", "", "", "http://127.0.0.1:"},
		{"the public URL", "https://hone.example.com", "localhost", "https://hone.example.com/w/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := startWith(t, config.Config{PublicURL: tc.public})
			port := a.URL()[strings.LastIndex(a.URL(), ":")+1:]
			req, _ := http.NewRequest("POST", a.URL()+"/api/v1/workshops", strings.NewReader(`{"name":"Review","facilitator":{"name":"Fay"}}`))
			req.Header.Set("Content-Type", "application/json")
			if tc.host != "" {
				req.Host = tc.host + ":" + port
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var created struct {
				Facilitator struct {
					JoinURL string `json:"join_url"`
				} `json:"facilitator"`
			}
			if err := json.Unmarshal(body, &created); err != nil || resp.StatusCode != http.StatusCreated {
				t.Fatalf("POST /workshops = %d %s", resp.StatusCode, body)
			}
			if !strings.HasPrefix(created.Facilitator.JoinURL, tc.want) {
				t.Fatalf("join_url %q, want it to start with %q", created.Facilitator.JoinURL, tc.want)
			}
			url, _, err := a.DB.Auth().LatestServer(context.Background())
			want := a.URL()
			if tc.public != "" {
				want = tc.public
			}
			if err != nil || url != want {
				t.Fatalf("the server noted %q (%v), want %q", url, err, want)
			}
		})
	}
}
