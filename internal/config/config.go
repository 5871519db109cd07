// Package config reads hone's settings from the environment; command-line
// flags override them.
package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/tuning"
)

// Config is everything hone needs to run.
type Config struct {
	// Addr is the address the server listens on.
	Addr string
	// DataDir holds hone.db when DatabaseURL is empty.
	DataDir string
	// DatabaseURL is a postgres:// URL; empty means SQLite in DataDir.
	DatabaseURL string
	// APIToken, when set, is required as a Bearer token on /api/v1.
	APIToken string
	// MaxBodyBytes bounds request bodies.
	MaxBodyBytes int64
	// MessageLimit is the largest chat reply in bytes.
	MessageLimit int
	// PublicURL is where users reach the web server, for links in replies.
	PublicURL string
	// AppName names the application under test in exports and replies.
	AppName string
	// MetricsFile is a metric set file (YAML or JSON); empty means hone's
	// default set.
	MetricsFile string
	// Prompts are the system prompt files the web chat offers.
	Prompts []string
	// LLM says how to reach the model under test in the web chat.
	LLM llm.Config
}

// Defaults.
const (
	DefaultAddr         = "localhost:8080"
	DefaultMaxBodyBytes = 4 << 20
)

// Env lists the environment variables hone reads, with what they set.
var Env = [][2]string{
	{"HONE_ADDR", "address to listen on (default " + DefaultAddr + ")"},
	{"HONE_DATA_DIR", "directory of the SQLite file hone.db (default: the working directory)"},
	{"HONE_DATABASE_URL", "postgres://… URL to use PostgreSQL instead of SQLite"},
	{"HONE_API_TOKEN", "Bearer token required on /api/v1 when set"},
	{"HONE_MAX_BODY_BYTES", "largest request body accepted (default 4194304)"},
	{"HONE_MESSAGE_LIMIT", "largest chat reply in bytes; larger exports become a download link (default 25600)"},
	{"HONE_PUBLIC_URL", "URL users reach hone at, for download links (default http://ADDR)"},
	{"HONE_APP_NAME", "name of the application under test, as in the CSV's \"<name> Response\" column (default Bot)"},
	{"HONE_METRICS_FILE", "metric set file (YAML or JSON) scoring every turn (default: the built-in ERA set)"},
	{"HONE_PROMPT_FILE", "system prompt file(s) of the chat at /chat, comma-separated"},
	{llm.EnvBaseURL, "base URL of the OpenAI-compatible LLM API, e.g. http://localhost:11434/v1"},
	{llm.EnvAPIKey, "API key of the LLM (may be empty for a local server)"},
	{llm.EnvModel, "model the chat talks to, e.g. gpt-4o-mini"},
	{llm.EnvTimeout, "time limit per LLM attempt, e.g. 90s (default 60s)"},
}

// FromEnv returns the configuration the environment sets, with defaults.
func FromEnv() (Config, error) {
	c := Config{
		Addr:         envOr("HONE_ADDR", DefaultAddr),
		DataDir:      envOr("HONE_DATA_DIR", "."),
		DatabaseURL:  os.Getenv("HONE_DATABASE_URL"),
		APIToken:     os.Getenv("HONE_API_TOKEN"),
		PublicURL:    os.Getenv("HONE_PUBLIC_URL"),
		AppName:      envOr("HONE_APP_NAME", tuning.DefaultAppName),
		MetricsFile:  os.Getenv("HONE_METRICS_FILE"),
		MaxBodyBytes: DefaultMaxBodyBytes,
		MessageLimit: tuning.DefaultMessageLimit,
	}
	if v := os.Getenv("HONE_MAX_BODY_BYTES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return c, hone.FieldError("HONE_MAX_BODY_BYTES", "HONE_MAX_BODY_BYTES must be a positive number of bytes, got %q", v)
		}
		c.MaxBodyBytes = n
	}
	if v := os.Getenv("HONE_MESSAGE_LIMIT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1024 {
			return c, hone.FieldError("HONE_MESSAGE_LIMIT", "HONE_MESSAGE_LIMIT must be a number of bytes of at least 1024, got %q", v)
		}
		c.MessageLimit = n
	}
	for _, p := range strings.Split(os.Getenv("HONE_PROMPT_FILE"), ",") {
		if p = strings.TrimSpace(p); p != "" {
			c.Prompts = append(c.Prompts, p)
		}
	}
	var err error
	if c.LLM, err = llm.ConfigFromEnv(); err != nil {
		return c, err
	}
	return c, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// DSN is what storage.Open takes: the PostgreSQL URL, or the SQLite file.
func (c Config) DSN() string {
	if c.DatabaseURL != "" {
		return c.DatabaseURL
	}
	return filepath.Join(c.DataDir, "hone.db")
}

// Validate reports the first setting that cannot work.
func (c Config) Validate() error {
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		return hone.FieldError("HONE_DATABASE_URL", "HONE_DATABASE_URL must start with postgres:// or postgresql://")
	}
	if c.MaxBodyBytes <= 0 {
		return hone.FieldError("max-body-bytes", "the body limit must be positive")
	}
	return nil
}

// DatabaseName describes the database for logs without any password.
func (c Config) DatabaseName() string {
	if c.DatabaseURL == "" {
		return "sqlite " + c.DSN()
	}
	return fmt.Sprintf("postgres %s", redactURL(c.DatabaseURL))
}

func redactURL(u string) string {
	at := strings.LastIndex(u, "@")
	scheme := strings.Index(u, "://")
	if at < 0 || scheme < 0 {
		return u
	}
	return u[:scheme+3] + "…@" + u[at+1:]
}
