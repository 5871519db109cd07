package learning

import (
	"log/slog"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/jobs"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/score"
)

// Defaults of Options.
const (
	DefaultThreshold         = 0.7
	DefaultCorrectionTimeout = 10 * time.Minute
	DefaultChunkChars        = 40_000
	DefaultStaleAfter        = 2 * time.Minute
)

// Options configure a Service.
type Options struct {
	Logger *slog.Logger
	Now    func() time.Time
	// LLM synthesises learnings and judges corrections; nil when none is
	// configured, and LLMError then says why.
	LLM      *llm.Client
	LLMError error
	// Threshold is the confidence from which a learning is applied
	// (DefaultThreshold when 0).
	Threshold float64
	// CorrectionTimeout is how long a 👎 waits for its correction
	// (DefaultCorrectionTimeout when 0).
	CorrectionTimeout time.Duration
	// PerTester scopes synthesised learnings to the tester whose
	// corrections they come from (a personal assistant); otherwise they
	// apply to everyone.
	PerTester bool
	// Base returns the base system prompt, whose protected lines no
	// learning may weaken; nil or "" when hone does not know it.
	Base func() (string, error)
	// Protected, when set, returns the protected rules instead of the
	// base prompt's marked lines (--protected FILE).
	Protected func() (string, error)
	// ChunkChars bounds the corrections sent in one synthesis call, in
	// characters (DefaultChunkChars when 0).
	ChunkChars int
	// StaleAfter is how long a running synthesis may go without a
	// heartbeat before it counts as interrupted.
	StaleAfter time.Duration
	// Scores is the one path ratings are recorded through, as scores of
	// config thumbs; the service follows them (Follows, ScoresChanged).
	// Without it no rating is taken.
	Scores *score.Service
}

// Service is the learning capability, for every face.
type Service struct {
	store Store
	opts  Options
	log   *slog.Logger

	cache promptCache

	jobs *jobs.Loop
}

// NewService returns the learning capability over store.
func NewService(store Store, opts Options) *Service {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Threshold <= 0 {
		opts.Threshold = DefaultThreshold
	}
	if opts.CorrectionTimeout <= 0 {
		opts.CorrectionTimeout = DefaultCorrectionTimeout
	}
	if opts.ChunkChars <= 0 {
		opts.ChunkChars = DefaultChunkChars
	}
	if opts.StaleAfter <= 0 {
		opts.StaleAfter = DefaultStaleAfter
	}
	s := &Service{store: store, opts: opts, log: opts.Logger}
	s.jobs = s.jobLoop()
	return s
}

// Threshold is the confidence from which learnings are applied.
func (s *Service) Threshold() float64 { return s.opts.Threshold }

// LLMConfigured reports whether an LLM answers; when not, the error says
// what to set.
func (s *Service) LLMConfigured() (bool, error) { return llm.Ready(s.opts.LLM, s.opts.LLMError) }

// errNoLLM is the error of synthesis without an LLM.
func (s *Service) errNoLLM() error {
	_, err := s.LLMConfigured()
	return hone.Errorf(hone.EUNAVAILABLE, "Synthesis needs an LLM: %s", hone.ErrorMessage(err))
}

// now is the time as the store keeps it: UTC, to the microsecond.
func (s *Service) now() time.Time { return s.opts.Now().UTC().Truncate(time.Microsecond) }
