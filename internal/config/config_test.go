package config

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm"
)

func TestFromEnv(t *testing.T) {
	t.Setenv("HONE_DATA_DIR", "/var/lib/hone")
	t.Setenv("HONE_PROMPT_FILE", "a.md, b.md,,")
	t.Setenv("HONE_MESSAGE_LIMIT", "4096")
	c, err := FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if c.DSN() != "/var/lib/hone/hone.db" || c.MessageLimit != 4096 || !slices.Equal(c.Prompts, []string{"a.md", "b.md"}) ||
		c.Addr != DefaultAddr || c.MaxBodyBytes != DefaultMaxBodyBytes {
		t.Fatalf("config = %+v", c)
	}
	t.Setenv("HONE_DATABASE_URL", "postgres://u:secret@db/hone")
	c, _ = FromEnv()
	if c.DSN() != "postgres://u:secret@db/hone" || c.DatabaseName() != "postgres postgres://db/hone" {
		t.Fatalf("dsn %q name %q", c.DSN(), c.DatabaseName())
	}
	t.Setenv("HONE_DATABASE_URL", "postgres://db/hone?user=u&password=secret&sslmode=disable")
	if c, _ = FromEnv(); c.DatabaseName() != "postgres postgres://db/hone" {
		t.Fatalf("name %q shows the password of the query", c.DatabaseName())
	}
}

func TestPublicURL(t *testing.T) {
	for _, tc := range []struct {
		url        string
		valid, tls bool
	}{
		{"", true, false},
		{"http://localhost:8080", true, false},
		{"https://hone.example.com", true, true},
		{"https://hone.example.com/base/", true, true},
		{"hone.example.com", false, false},
		{"ftp://hone.example.com", false, false},
		{"https://", false, false},
		{"https://user:pw@hone.example.com", false, false},
	} {
		c := Config{PublicURL: tc.url, MaxBodyBytes: 1}
		err := c.Validate()
		if (err == nil) != tc.valid || err != nil && hone.ErrorField(err) != "HONE_PUBLIC_URL" {
			t.Errorf("Validate(%q) = %v, want valid %v", tc.url, err, tc.valid)
		}
		if tc.valid && c.PublicHTTPS() != tc.tls {
			t.Errorf("PublicHTTPS(%q) = %v, want %v", tc.url, c.PublicHTTPS(), tc.tls)
		}
	}
}

func TestFromEnvRejectsBadValues(t *testing.T) {
	for name, value := range map[string]string{
		"HONE_MAX_BODY_BYTES":      "lots",
		"HONE_MESSAGE_LIMIT":       "10",
		"HONE_LLM_TIMEOUT":         "soon",
		"HONE_LLM_MAX_TOKENS":      "0",
		"HONE_LLM_MAX_TOKENS_CHAT": "many",
		"HONE_ALERT_BUDGET":        "0",
		"HONE_ALERT_BUDGET_MAX":    "many",
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, value)
			_, err := FromEnv()
			if err == nil || hone.ErrorCode(err) != hone.EINVALID || hone.ErrorField(err) != name {
				t.Fatalf("%s=%s: err = %v (field %q)", name, value, err, hone.ErrorField(err))
			}
		})
	}
	c := Config{DatabaseURL: "mysql://x", MaxBodyBytes: 1}
	if err := c.Validate(); hone.ErrorField(err) != "HONE_DATABASE_URL" {
		t.Fatalf("Validate = %v", err)
	}
}

func TestAlertBudgetSettings(t *testing.T) {
	c, err := FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Learn.BudgetRules(); r.Base != 5 || r.Min != 1 || r.Max != 10 || r.PauseAfter != 3 || r.Window != 20 || r.Grace != 24*time.Hour {
		t.Fatalf("default budget rules %+v", r)
	}
	t.Setenv("HONE_ALERT_BUDGET", "3")
	t.Setenv("HONE_ALERT_BUDGET_MIN", "2")
	t.Setenv("HONE_ALERT_BUDGET_MAX", "4")
	t.Setenv("HONE_ALERT_PAUSE_AFTER", "5")
	if c, err = FromEnv(); err != nil || c.Validate() != nil {
		t.Fatal(err, c.Validate())
	}
	if r := c.Learn.BudgetRules(); r.Base != 3 || r.Min != 2 || r.Max != 4 || r.PauseAfter != 5 {
		t.Fatalf("budget rules %+v", r)
	}
	t.Setenv("HONE_ALERT_BUDGET", "7")
	c, _ = FromEnv()
	if err := c.Validate(); hone.ErrorField(err) != "HONE_ALERT_BUDGET" {
		t.Fatalf("a budget above its max: %v", err)
	}
}

func TestEnvListsTheLLMBounds(t *testing.T) {
	listed := map[string]string{}
	for _, e := range Env {
		listed[e[0]] = e[1]
	}
	all := listed[llm.EnvMaxTokens]
	for _, p := range llm.Purposes {
		if want := fmt.Sprintf("%s %d", p, llm.MaxTokensDefault(p)); !strings.Contains(all, want) {
			t.Errorf("%s row %q lacks the default %q", llm.EnvMaxTokens, all, want)
		}
	}
	if _, ok := listed[llm.EnvMaxTokensPrefix+"<PURPOSE>"]; !ok {
		t.Errorf("Env lacks %s<PURPOSE>", llm.EnvMaxTokensPrefix)
	}
	t.Setenv("HONE_LLM_MAX_TOKENS_LEARNING", "9000")
	c, err := FromEnv()
	if err != nil || c.LLM.PurposeMaxTokens[llm.PurposeLearning] != 9000 {
		t.Fatalf("config %+v, %v", c.LLM, err)
	}
}
