package llm

import (
	"maps"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/honehq/hone"
)

// Environment variables read by ConfigFromEnv.
const (
	EnvBaseURL  = "HONE_LLM_BASE_URL"
	EnvAPIKey   = "HONE_LLM_API_KEY"
	EnvModel    = "HONE_LLM_MODEL"
	EnvTimeout  = "HONE_LLM_TIMEOUT"
	EnvJSONMode = "HONE_LLM_JSON_MODE"
	// EnvModelPrefix followed by a purpose in upper case, with "-" written
	// as "_", overrides the model for that purpose:
	// HONE_LLM_MODEL_ANALYSIS=gpt-4o sets Config.Models["analysis"].
	EnvModelPrefix = "HONE_LLM_MODEL_"
	// EnvMaxTokens bounds the answer of every purpose, in tokens.
	EnvMaxTokens = "HONE_LLM_MAX_TOKENS"
	// EnvMaxTokensPrefix followed by a purpose written like in
	// EnvModelPrefix bounds the answers of that purpose:
	// HONE_LLM_MAX_TOKENS_ANALYSIS=16384 sets Config.PurposeMaxTokens["analysis"].
	EnvMaxTokensPrefix = "HONE_LLM_MAX_TOKENS_"
)

// Defaults for the zero fields of Config.
const (
	DefaultBaseURL        = "https://api.openai.com/v1"
	DefaultTimeout        = 60 * time.Second
	DefaultMaxRetries     = 3
	DefaultRetryBaseDelay = 500 * time.Millisecond
)

// ConfigHelp tells a user which environment variables configure hone's LLM,
// with working examples for OpenAI and a local Ollama.
const ConfigHelp = `hone talks to any OpenAI-compatible Chat Completions endpoint. Set:

  HONE_LLM_BASE_URL  base URL of the API, usually ending in /v1
  HONE_LLM_API_KEY   API key (may be left empty for a local server when HONE_LLM_BASE_URL is set)
  HONE_LLM_MODEL     model name
  HONE_LLM_TIMEOUT   optional time limit per attempt, e.g. 90s (default 60s)

Optional, per purpose (CHAT, FOLLOW_UP, ANALYSIS, JUDGE, LEARNING):
  HONE_LLM_MODEL_<PURPOSE>       another model for that purpose
  HONE_LLM_MAX_TOKENS            most tokens any answer may have (default per purpose:
                                 chat 4096, follow-up 1024, analysis 8192, judge 1024, learning 4096)
  HONE_LLM_MAX_TOKENS_<PURPOSE>  most tokens an answer of that purpose may have

OpenAI:
  export HONE_LLM_BASE_URL=https://api.openai.com/v1
  export HONE_LLM_API_KEY=sk-...
  export HONE_LLM_MODEL=gpt-4o-mini

Local Ollama (no key needed; any value such as "ollama" works too):
  export HONE_LLM_BASE_URL=http://localhost:11434/v1
  export HONE_LLM_API_KEY=ollama
  export HONE_LLM_MODEL=llama3.1
`

// Config says how to reach the LLM.
//
// BaseURL defaults to OpenAI's API when an APIKey is given. APIKey may be
// empty only when BaseURL is set, because local servers such as Ollama,
// vLLM and llama.cpp need none while OpenAI does.
type Config struct {
	BaseURL string
	APIKey  string
	Model   string
	// Models overrides Model per Request.Purpose.
	Models map[string]string
	// MaxTokens bounds the answer of every call, in tokens. Zero means each
	// purpose's default (see DefaultMaxTokens).
	MaxTokens int
	// PurposeMaxTokens overrides MaxTokens per Request.Purpose.
	PurposeMaxTokens map[string]int
	// Timeout limits each attempt; for a stream, the wait for each chunk.
	// Zero means DefaultTimeout.
	Timeout time.Duration
	// MaxRetries is the number of retries after a failed attempt. Zero means
	// DefaultMaxRetries; a negative value disables retries.
	MaxRetries int
	// RetryBaseDelay is the first backoff delay, doubled on each retry and
	// jittered. Zero means DefaultRetryBaseDelay.
	RetryBaseDelay time.Duration
	// JSONMode makes Generate use response_format json_object with the
	// schema in the system message, for providers without json_schema.
	JSONMode bool
}

// ConfigFromEnv reads the Config from the HONE_LLM_* environment variables.
// It does not validate it; call Validate or New.
func ConfigFromEnv() (Config, error) {
	cfg := Config{
		BaseURL: strings.TrimSpace(os.Getenv(EnvBaseURL)),
		APIKey:  strings.TrimSpace(os.Getenv(EnvAPIKey)),
		Model:   strings.TrimSpace(os.Getenv(EnvModel)),
	}
	if v := strings.TrimSpace(os.Getenv(EnvTimeout)); v != "" {
		d, err := parseTimeout(v)
		if err != nil {
			return cfg, hone.FieldError(EnvTimeout, "%s must be a duration such as 90s or a number of seconds, not %q.", EnvTimeout, v)
		}
		cfg.Timeout = d
	}
	if v := strings.TrimSpace(os.Getenv(EnvJSONMode)); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return cfg, hone.FieldError(EnvJSONMode, "%s must be true or false, not %q.", EnvJSONMode, v)
		}
		cfg.JSONMode = b
	}
	if v := strings.TrimSpace(os.Getenv(EnvMaxTokens)); v != "" {
		n, err := parseMaxTokens(EnvMaxTokens, v)
		if err != nil {
			return cfg, err
		}
		cfg.MaxTokens = n
	}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		v = strings.TrimSpace(v)
		switch {
		case v == "":
		case strings.HasPrefix(k, EnvModelPrefix):
			if cfg.Models == nil {
				cfg.Models = map[string]string{}
			}
			cfg.Models[envPurpose(k, EnvModelPrefix)] = v
		case strings.HasPrefix(k, EnvMaxTokensPrefix):
			purpose := envPurpose(k, EnvMaxTokensPrefix)
			if !slices.Contains(Purposes, purpose) {
				return cfg, hone.FieldError(k, "%s names no purpose of hone: use %s followed by one of %s.", k, EnvMaxTokensPrefix, envPurposes())
			}
			n, err := parseMaxTokens(k, v)
			if err != nil {
				return cfg, err
			}
			if cfg.PurposeMaxTokens == nil {
				cfg.PurposeMaxTokens = map[string]int{}
			}
			cfg.PurposeMaxTokens[purpose] = n
		}
	}
	return cfg, nil
}

// envPurpose is the purpose an environment variable name starting with
// prefix is for: HONE_LLM_MODEL_FOLLOW_UP is for "follow-up".
func envPurpose(name, prefix string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(name, prefix)), "_", "-")
}

// purposeEnv is the inverse of envPurpose: the variable of purpose, or the
// variable for all purposes when purpose is empty.
func purposeEnv(prefix, purpose string) string {
	if purpose == "" {
		return strings.TrimSuffix(prefix, "_")
	}
	return prefix + envSuffix(purpose)
}

func envSuffix(purpose string) string {
	return strings.ToUpper(strings.ReplaceAll(purpose, "-", "_"))
}

// envPurposes lists the purposes as variable name suffixes.
func envPurposes() string {
	names := make([]string, len(Purposes))
	for i, p := range Purposes {
		names[i] = envSuffix(p)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// maxTokensLimit is the largest bound accepted: servers read it as a 32-bit
// integer.
const maxTokensLimit = 1<<31 - 1

func parseMaxTokens(name, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 || n > maxTokensLimit {
		return 0, hone.FieldError(name, "%s must be a positive whole number of tokens such as 4096, not %q.", name, v)
	}
	return n, nil
}

func parseTimeout(v string) (time.Duration, error) {
	if n, err := strconv.ParseFloat(v, 64); err == nil && n > 0 {
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err == nil && d <= 0 {
		err = strconv.ErrRange
	}
	return d, err
}

// Configured reports whether any HONE_LLM_* setting is present, so callers
// can tell "no LLM wanted" from "LLM set up wrongly".
func (c Config) Configured() bool {
	return c.BaseURL != "" || c.APIKey != "" || c.Model != ""
}

// Validate returns an EINVALID *hone.Error naming every missing or invalid
// variable, or nil when the Config can be used.
func (c Config) Validate() error {
	var missing []string
	if c.BaseURL == "" && c.APIKey == "" {
		missing = append(missing, EnvBaseURL, EnvAPIKey)
	} else if c.APIKey == "" && isOpenAI(c.BaseURL) {
		missing = append(missing, EnvAPIKey)
	}
	if c.Model == "" {
		missing = append(missing, EnvModel)
	}
	if len(missing) > 0 {
		return &hone.Error{
			Code:  hone.EINVALID,
			Field: missing[0],
			Message: "The LLM is not configured: set " + strings.Join(missing, ", ") +
				". For OpenAI: HONE_LLM_BASE_URL=https://api.openai.com/v1 HONE_LLM_API_KEY=sk-... HONE_LLM_MODEL=gpt-4o-mini;" +
				" for a local Ollama: HONE_LLM_BASE_URL=http://localhost:11434/v1 HONE_LLM_API_KEY=ollama HONE_LLM_MODEL=llama3.1.",
		}
	}
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return hone.FieldError(EnvBaseURL, "%s must be an http:// or https:// URL such as https://api.openai.com/v1 or http://localhost:11434/v1.", EnvBaseURL)
		}
	}
	if c.Timeout < 0 {
		return hone.FieldError(EnvTimeout, "%s must be positive.", EnvTimeout)
	}
	if c.MaxTokens < 0 || c.MaxTokens > maxTokensLimit {
		return hone.FieldError(EnvMaxTokens, "%s must be a positive whole number of tokens such as 4096, not %d.", EnvMaxTokens, c.MaxTokens)
	}
	for _, p := range slices.Sorted(maps.Keys(c.PurposeMaxTokens)) {
		if n := c.PurposeMaxTokens[p]; n <= 0 || n > maxTokensLimit {
			name := purposeEnv(EnvMaxTokensPrefix, p)
			return hone.FieldError(name, "%s must be a positive whole number of tokens such as 4096, not %d.", name, n)
		}
	}
	return nil
}

func isOpenAI(baseURL string) bool {
	u, err := url.Parse(baseURL)
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}

func (c Config) withDefaults() Config {
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = DefaultMaxRetries
	} else if c.MaxRetries < 0 {
		c.MaxRetries = 0
	}
	if c.RetryBaseDelay <= 0 {
		c.RetryBaseDelay = DefaultRetryBaseDelay
	}
	return c
}

// model returns the model for req: Request.Model, then Models[Purpose],
// then Model.
func (c Config) model(req Request) string {
	if req.Model != "" {
		return req.Model
	}
	if m := c.Models[req.Purpose]; m != "" {
		return m
	}
	return c.Model
}

// Ready reports whether c answers calls; when it is nil, the error says
// what to set: cfgErr, the reason the configuration gave none, or what an
// empty configuration lacks.
func Ready(c *Client, cfgErr error) (bool, error) {
	if c != nil {
		return true, nil
	}
	if cfgErr == nil {
		cfgErr = Config{}.Validate()
	}
	return false, cfgErr
}
