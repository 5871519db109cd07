package llm_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     llm.Config
		missing []string
		field   string
	}{
		{"nothing set", llm.Config{}, []string{llm.EnvBaseURL, llm.EnvAPIKey, llm.EnvModel}, ""},
		{"model missing", llm.Config{BaseURL: "https://api.openai.com/v1", APIKey: "sk-x"}, []string{llm.EnvModel}, ""},
		{"key missing for openai", llm.Config{BaseURL: "https://api.openai.com/v1", Model: "gpt-4o-mini"}, []string{llm.EnvAPIKey}, ""},
		{"ollama without key", llm.Config{BaseURL: "http://localhost:11434/v1", Model: "llama3.1"}, nil, ""},
		{"key without base URL means OpenAI", llm.Config{APIKey: "sk-x", Model: "gpt-4o-mini"}, nil, ""},
		{"bad base URL", llm.Config{BaseURL: "localhost:11434", Model: "m"}, nil, llm.EnvBaseURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if len(tt.missing) == 0 && tt.field == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if hone.ErrorCode(err) != hone.EINVALID {
				t.Fatalf("Validate() = %v, want EINVALID", err)
			}
			msg := hone.ErrorMessage(err)
			for _, v := range []string{llm.EnvBaseURL, llm.EnvAPIKey, llm.EnvModel} {
				if len(tt.missing) == 0 {
					break
				}
				named := strings.Contains(strings.SplitN(msg, ".", 2)[0], v)
				want := contains(tt.missing, v)
				if named != want {
					t.Errorf("message %q names %s = %v, want %v", msg, v, named, want)
				}
			}
			if tt.field != "" && hone.ErrorField(err) != tt.field {
				t.Errorf("field = %q, want %q", hone.ErrorField(err), tt.field)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestConfigFromEnv(t *testing.T) {
	t.Setenv("HONE_LLM_BASE_URL", "http://localhost:11434/v1")
	t.Setenv("HONE_LLM_API_KEY", "")
	t.Setenv("HONE_LLM_MODEL", "llama3.1")
	t.Setenv("HONE_LLM_TIMEOUT", "90s")
	t.Setenv("HONE_LLM_MODEL_FOLLOW_UP", "llama3.2:1b")
	cfg, err := llm.ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BaseURL != "http://localhost:11434/v1" || cfg.Model != "llama3.1" || cfg.Timeout != 90*time.Second {
		t.Errorf("cfg = %+v", cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate() = %v", err)
	}
	c, err := llm.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Model(llm.PurposeFollowUp); got != "llama3.2:1b" {
		t.Errorf("Model(follow-up) = %q", got)
	}
	if got := c.Model(llm.PurposeChat); got != "llama3.1" {
		t.Errorf("Model(chat) = %q", got)
	}

	t.Setenv("HONE_LLM_TIMEOUT", "30")
	if cfg, _ := llm.ConfigFromEnv(); cfg.Timeout != 30*time.Second {
		t.Errorf("timeout 30 = %v", cfg.Timeout)
	}
	t.Setenv("HONE_LLM_TIMEOUT", "soon")
	if _, err := llm.ConfigFromEnv(); hone.ErrorField(err) != llm.EnvTimeout {
		t.Errorf("bad timeout: %v", err)
	}
}

func TestNewRejectsInvalidConfig(t *testing.T) {
	_, err := llm.New(llm.Config{}, nil)
	var herr *hone.Error
	if !errors.As(err, &herr) || herr.Code != hone.EINVALID {
		t.Fatalf("New(empty) = %v", err)
	}
}

func TestConfigHelp(t *testing.T) {
	for _, want := range []string{
		"HONE_LLM_BASE_URL=https://api.openai.com/v1", "HONE_LLM_API_KEY=sk-", "HONE_LLM_MODEL=gpt-4o-mini",
		"HONE_LLM_BASE_URL=http://localhost:11434/v1", "HONE_LLM_API_KEY=ollama", "HONE_LLM_MODEL=llama3.1",
	} {
		if !strings.Contains(llm.ConfigHelp, want) {
			t.Errorf("ConfigHelp lacks %q", want)
		}
	}
	for _, p := range llm.Purposes {
		if want := fmt.Sprintf("%s %d", p, llm.MaxTokensDefault(p)); !strings.Contains(llm.ConfigHelp, want) {
			t.Errorf("ConfigHelp lacks the default bound %q", want)
		}
	}
}

func TestReady(t *testing.T) {
	c, err := llm.New(llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", APIKey: "k"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := llm.Ready(c, errors.New("ignored")); !ok || err != nil {
		t.Errorf("Ready with a client = %v, %v", ok, err)
	}
	why := errors.New("HONE_LLM_MODEL is not set")
	if ok, err := llm.Ready(nil, why); ok || err != why {
		t.Errorf("Ready without a client = %v, %v; want the configuration's error", ok, err)
	}
	if ok, err := llm.Ready(nil, nil); ok || err == nil || !strings.Contains(err.Error(), llm.EnvBaseURL) {
		t.Errorf("Ready with nothing = %v, %v; want what to set", ok, err)
	}
}
