package llmtest

import (
	"time"

	"github.com/honehq/hone/internal/llm"
)

// Config returns an llm.Config that points at the Server, with the Server's
// API key (or "test-key"), model "fake-model", a 5s timeout and 1ms retry
// backoff so that tests run fast.
func (s *Server) Config() llm.Config {
	key := s.apiKey
	if key == "" {
		key = "test-key"
	}
	return llm.Config{BaseURL: s.URL, APIKey: key, Model: "fake-model", Timeout: 5 * time.Second, RetryBaseDelay: time.Millisecond}
}

// Client returns an llm.Client for s.Config() recording into rec (may be nil).
func (s *Server) Client(rec llm.Recorder) *llm.Client {
	c, err := llm.New(s.Config(), rec)
	if err != nil {
		panic(err)
	}
	return c
}
