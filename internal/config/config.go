// Package config reads hone's settings from the environment; command-line
// flags override them.
package config

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/alerts"
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
	// APIToken, when set, is required as a Bearer token on /api/v1 and
	// /metrics, and signing in with it on every page of the web UI.
	APIToken string
	// NoAuth lets hone serve a non-loopback address without an APIToken.
	NoAuth bool
	// ReadTimeout bounds reading a whole request, headers and body.
	ReadTimeout time.Duration
	// DBTimeout bounds each database call.
	DBTimeout time.Duration
	// LinkTTL is how long a signed download link works.
	LinkTTL time.Duration
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
	// Learn configures the learning loop.
	Learn Learn
	// SuggestionRoot is the JSONL suggestion history that hone
	// suggestions forget clears with the database (HONE_SUGGESTION_ROOT;
	// default ~/.hone/session_history).
	SuggestionRoot string
}

// Learn configures the learning loop.
type Learn struct {
	// Threshold is the confidence from which learnings are applied.
	Threshold float64
	// CorrectionTimeout is how long a 👎 waits for its correction.
	CorrectionTimeout time.Duration
	// PerTester scopes synthesised learnings to the tester whose
	// corrections they come from.
	PerTester bool
	// Every, when not 0, synthesises pending corrections at that interval.
	Every time.Duration
	// Protected is a file of rules no learning may weaken, instead of the
	// base prompt's marked lines.
	Protected string
	// AlertBudget is the daily reach-out budget at an alert_quality_score
	// of 0; AlertBudgetMin and AlertBudgetMax bound it; AlertPauseAfter is
	// how many 👎 in a row pause an alert type (0: the defaults).
	AlertBudget, AlertBudgetMin, AlertBudgetMax, AlertPauseAfter int
}

// Defaults.
const (
	DefaultAddr         = "localhost:8080"
	DefaultMaxBodyBytes = 4 << 20
	DefaultReadTimeout  = 60 * time.Second
	DefaultDBTimeout    = 10 * time.Second
	DefaultLinkTTL      = 7 * 24 * time.Hour
	// DefaultLearnThreshold and DefaultCorrectionTimeout are the learning
	// loop's (see package learning).
	DefaultLearnThreshold    = 0.7
	DefaultCorrectionTimeout = 10 * time.Minute
)

// Env lists the environment variables hone reads, with what they set.
var Env = [][2]string{
	{"HONE_ADDR", "address to listen on (default " + DefaultAddr + ")"},
	{"HONE_DATA_DIR", "directory of the SQLite file hone.db (default: the working directory)"},
	{"HONE_DATABASE_URL", "postgres://… URL to use PostgreSQL instead of SQLite"},
	{"HONE_API_TOKEN", "when set: Bearer token required on /api/v1 and /metrics, and sign-in on every page of the web UI"},
	{"HONE_MAX_BODY_BYTES", "largest request body accepted (default 4194304)"},
	{"HONE_READ_TIMEOUT", "time limit on reading a request, headers and body (default 60s)"},
	{"HONE_DB_TIMEOUT", "time limit of each database call (default 10s); past it the answer is 503"},
	{"HONE_LINK_TTL", "how long a signed download link from !print works (default 168h, 7 days)"},
	{"HONE_MESSAGE_LIMIT", "largest chat reply in bytes; larger exports become a download link (default 25600)"},
	{"HONE_PUBLIC_URL", "URL users reach hone at, for download links (default http://ADDR)"},
	{"HONE_APP_NAME", "name of the application under test, as in the CSV's \"<name> Response\" column (default Bot)"},
	{"HONE_METRICS_FILE", "metric set file (YAML or JSON) scoring every turn (default: the built-in ERA set)"},
	{"HONE_PROMPT_FILE", "system prompt file(s) of the chat at /chat, comma-separated"},
	{"HONE_LEARN_THRESHOLD", "confidence from which a learning is applied to the prompt, 0 to 1 (default 0.7)"},
	{"HONE_LEARN_CORRECTION_TIMEOUT", "how long a 👎 waits for the tester's correction (default 10m)"},
	{"HONE_LEARN_SCOPE", "app (learnings apply to everyone, the default) or tester (each tester's apply to them)"},
	{"HONE_LEARN_EVERY", "synthesise pending corrections at this interval, e.g. 24h (default: only on demand)"},
	{"HONE_LEARN_PROTECTED", "file of rules no learning may weaken (default: the prompt's lines between <!-- hone:protected --> markers)"},
	{"HONE_ALERT_BUDGET", "alerts a conversation may get in 24 hours at an alert_quality_score of 0 (default 5)"},
	{"HONE_ALERT_BUDGET_MIN", "the fewest alerts the budget allows (default 1)"},
	{"HONE_ALERT_BUDGET_MAX", "the most alerts the budget allows (default 10)"},
	{"HONE_ALERT_PAUSE_AFTER", "how many 👎 in a row pause an alert type (default 3)"},
	{"HONE_SUGGESTION_ROOT", "JSONL suggestion history that hone suggestions forget clears too (default ~/.hone/session_history)"},
	{llm.EnvBaseURL, "base URL of the OpenAI-compatible LLM API, e.g. http://localhost:11434/v1"},
	{llm.EnvAPIKey, "API key of the LLM (may be empty for a local server)"},
	{llm.EnvModel, "model the chat talks to, e.g. gpt-4o-mini"},
	{llm.EnvTimeout, "time limit per LLM attempt, e.g. 90s (default 60s)"},
	{llm.EnvMaxTokens, "most tokens any LLM answer may have (default per purpose: chat 4096, follow-up 1024, analysis 8192, judge 1024, learning 4096)"},
	{llm.EnvMaxTokensPrefix + "<PURPOSE>", "most tokens an answer of one purpose (CHAT, FOLLOW_UP, ANALYSIS, JUDGE, LEARNING) may have"},
}

// FromEnv returns the configuration the environment sets, with defaults.
func FromEnv() (Config, error) {
	c := Config{
		Addr:           envOr("HONE_ADDR", DefaultAddr),
		DataDir:        envOr("HONE_DATA_DIR", "."),
		DatabaseURL:    os.Getenv("HONE_DATABASE_URL"),
		APIToken:       os.Getenv("HONE_API_TOKEN"),
		PublicURL:      os.Getenv("HONE_PUBLIC_URL"),
		AppName:        envOr("HONE_APP_NAME", tuning.DefaultAppName),
		MetricsFile:    os.Getenv("HONE_METRICS_FILE"),
		SuggestionRoot: os.Getenv("HONE_SUGGESTION_ROOT"),
		MaxBodyBytes:   DefaultMaxBodyBytes,
		MessageLimit:   tuning.DefaultMessageLimit,
		ReadTimeout:    DefaultReadTimeout,
		DBTimeout:      DefaultDBTimeout,
		LinkTTL:        DefaultLinkTTL,
		Learn:          Learn{Threshold: DefaultLearnThreshold, CorrectionTimeout: DefaultCorrectionTimeout, Protected: os.Getenv("HONE_LEARN_PROTECTED")},
	}
	for _, d := range []struct {
		name string
		to   *time.Duration
	}{{"HONE_READ_TIMEOUT", &c.ReadTimeout}, {"HONE_DB_TIMEOUT", &c.DBTimeout}, {"HONE_LINK_TTL", &c.LinkTTL},
		{"HONE_LEARN_CORRECTION_TIMEOUT", &c.Learn.CorrectionTimeout}, {"HONE_LEARN_EVERY", &c.Learn.Every}} {
		if v := os.Getenv(d.name); v != "" {
			t, err := time.ParseDuration(v)
			if err != nil || t <= 0 {
				return c, hone.FieldError(d.name, "%s must be a positive duration such as 30s, 10m or 168h, got %q", d.name, v)
			}
			*d.to = t
		}
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
	if v := os.Getenv("HONE_LEARN_THRESHOLD"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 || f > 1 {
			return c, hone.FieldError("HONE_LEARN_THRESHOLD", "HONE_LEARN_THRESHOLD must be a number above 0 and at most 1, got %q", v)
		}
		c.Learn.Threshold = f
	}
	switch v := strings.ToLower(strings.TrimSpace(os.Getenv("HONE_LEARN_SCOPE"))); v {
	case "", "app":
	case "tester":
		c.Learn.PerTester = true
	default:
		return c, hone.FieldError("HONE_LEARN_SCOPE", "HONE_LEARN_SCOPE must be app or tester, got %q", v)
	}
	for _, n := range []struct {
		name string
		to   *int
	}{{"HONE_ALERT_BUDGET", &c.Learn.AlertBudget}, {"HONE_ALERT_BUDGET_MIN", &c.Learn.AlertBudgetMin},
		{"HONE_ALERT_BUDGET_MAX", &c.Learn.AlertBudgetMax}, {"HONE_ALERT_PAUSE_AFTER", &c.Learn.AlertPauseAfter}} {
		if v := os.Getenv(n.name); v != "" {
			i, err := strconv.Atoi(v)
			if err != nil || i < 1 || i > 1000 {
				return c, hone.FieldError(n.name, "%s must be a whole number from 1 to 1000, got %q", n.name, v)
			}
			*n.to = i
		}
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
	if c.PublicURL != "" {
		u, err := url.Parse(c.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return hone.FieldError("HONE_PUBLIC_URL", "HONE_PUBLIC_URL must be an http:// or https:// URL with a host, such as https://hone.example.com, not %q", c.PublicURL)
		}
	}
	if c.MaxBodyBytes <= 0 {
		return hone.FieldError("max-body-bytes", "the body limit must be positive")
	}
	if c.Learn.Threshold < 0 || c.Learn.Threshold > 1 {
		return hone.FieldError("learn-threshold", "the learning threshold must be from 0 to 1, not %v", c.Learn.Threshold)
	}
	if c.Learn.Every < 0 {
		return hone.FieldError("learn-every", "the synthesis interval must not be negative")
	}
	if r := c.Learn.BudgetRules(); r.Min > r.Base || r.Base > r.Max {
		return hone.FieldError("HONE_ALERT_BUDGET", "the alert budget needs HONE_ALERT_BUDGET_MIN (%d) ≤ HONE_ALERT_BUDGET (%d) ≤ HONE_ALERT_BUDGET_MAX (%d)",
			r.Min, r.Base, r.Max)
	}
	return nil
}

// PublicHTTPS reports whether users reach hone over https (HONE_PUBLIC_URL),
// as behind a TLS proxy: then every cookie hone sets is Secure.
func (c Config) PublicHTTPS() bool {
	u, err := url.Parse(c.PublicURL)
	return err == nil && u.Scheme == "https"
}

// CheckExposure refuses to serve an address other machines can reach
// without an API token, unless NoAuth says that is meant.
func (c Config) CheckExposure(ctx context.Context) error {
	if Loopback(ctx, c.Addr) {
		return nil
	}
	if c.APIToken != "" {
		return CheckToken(c.APIToken)
	}
	if c.NoAuth {
		return nil
	}
	return hone.FieldError("addr", "hone will not serve %s without sign-in: other machines can reach that address, "+
		"and anyone there could read and change everything. Set HONE_API_TOKEN to a long random secret (the web UI then "+
		"asks for it, and the API wants it as a Bearer token), serve on localhost, or pass --no-auth if the network is "+
		"yours alone", c.Addr)
}

// MinTokenLength is the shortest HONE_API_TOKEN hone takes to guard an
// address other machines can reach.
const MinTokenLength = 16

// CheckToken refuses an API token too weak to guard an address other
// machines can reach: shorter than MinTokenLength characters, or only white
// space. Its error gives a fresh random token to use instead.
func CheckToken(token string) error {
	if strings.TrimSpace(token) != "" && hone.Chars(token) >= MinTokenLength {
		return nil
	}
	return hone.FieldError("HONE_API_TOKEN", "HONE_API_TOKEN must be at least %d characters and not only white space to guard "+
		"an address other machines can reach. Use a long random secret, such as this one, made just now (hone token makes another): %s",
		MinTokenLength, NewToken())
}

// NewToken returns a random API token: 32 random bytes, base64url.
func NewToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Loopback reports whether addr (host:port) only listens on this machine:
// its host is localhost or resolves to loopback addresses only. An empty
// host means every interface.
func Loopback(ctx context.Context, addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "" {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil {
		return ip.IsLoopback()
	}
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil || len(ips) == 0 {
		return false
	}
	for _, ip := range ips {
		if !ip.IP.IsLoopback() {
			return false
		}
	}
	return true
}

// DatabaseName describes the database for logs without any password.
func (c Config) DatabaseName() string {
	if c.DatabaseURL == "" {
		return "sqlite " + c.DSN()
	}
	return fmt.Sprintf("postgres %s", redactURL(c.DatabaseURL))
}

// redactURL is the database URL without its user, password or query (which
// may hold a password too).
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(a URL that does not parse)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// BudgetRules are the reach-out budget's rules the settings give.
func (l Learn) BudgetRules() alerts.BudgetRules {
	return alerts.BudgetRules{Base: l.AlertBudget, Min: l.AlertBudgetMin, Max: l.AlertBudgetMax, PauseAfter: l.AlertPauseAfter}.WithDefaults()
}
