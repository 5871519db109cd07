package teams

import (
	"log/slog"
	"testing"

	hone "github.com/honehq/hone"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		field string
	}{
		{"app id and password", Config{AppID: "a", AppPassword: "p"}, ""},
		{"no app id", Config{AppPassword: "p"}, "HONE_TEAMS_APP_ID"},
		{"no password", Config{AppID: "a"}, "HONE_TEAMS_APP_PASSWORD"},
		{"no auth on loopback", Config{NoAuth: true, Loopback: true}, ""},
		{"no auth on a public listener", Config{NoAuth: true, AppID: "a", AppPassword: "p"}, "HONE_TEAMS_NO_AUTH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if hone.ErrorField(err) != tt.field || (tt.field == "") != (err == nil) {
				t.Errorf("Validate() = %v, want field %q", err, tt.field)
			}
			_, nerr := New(tt.cfg, newFakeBot(), slog.New(slog.DiscardHandler))
			if (nerr == nil) != (err == nil) {
				t.Errorf("New() = %v, want what Validate says", nerr)
			}
		})
	}
	if (Config{NoAuth: true}).NoAuthWarning() == "" || (Config{}).NoAuthWarning() != "" {
		t.Error("NoAuthWarning must speak exactly when authentication is off")
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "[::1]:8080": true, "localhost:8080": true, "127.0.0.2:80": true,
		":8080": false, "0.0.0.0:8080": false, "[::]:8080": false, "10.0.0.5:8080": false, "hone.example.com:443": false,
	} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestTokenURL(t *testing.T) {
	if got := (Config{}).tokenURL(); got != "https://login.microsoftonline.com/botframework.com/oauth2/v2.0/token" {
		t.Errorf("multi-tenant token URL %s", got)
	}
	if got := (Config{TenantID: "t-1"}).tokenURL(); got != "https://login.microsoftonline.com/t-1/oauth2/v2.0/token" {
		t.Errorf("single-tenant token URL %s", got)
	}
}

func TestRecentIsBounded(t *testing.T) {
	r := newRecent[int](2)
	r.put("a", 1)
	r.put("b", 2)
	r.get("a")
	r.put("c", 3)
	if _, ok := r.get("b"); ok {
		t.Error("the least recently used entry was kept")
	}
	if v, ok := r.get("a"); !ok || v != 1 {
		t.Error("a recently used entry was forgotten")
	}
	if r.len() != 2 {
		t.Errorf("len = %d", r.len())
	}
}
