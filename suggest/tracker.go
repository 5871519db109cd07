package suggest

import (
	"crypto/rand"
	"encoding/base32"
	"strings"
	"sync"
	"time"
)

// DefaultSkipPrefix starts the inputs that are not recorded: an
// application's own commands, which suggestions do not try to predict.
const DefaultSkipPrefix = ":"

// Options configure a Tracker.
type Options struct {
	// Session and Server name where the records come from.
	Session string
	Server  string
	// Sink receives each finalised record; nil keeps them in the process
	// only (Submit still returns them).
	Sink Sink
	// SkipPrefix starts inputs that are not recorded (DefaultSkipPrefix
	// when empty; NoSkip to record every input).
	SkipPrefix string
	// Now is the clock (time.Now when nil). Durations are taken from the
	// monotonic reading of its times.
	Now func() time.Time
}

// NoSkip as Options.SkipPrefix records every input.
const NoSkip = "\x00none"

// Tracker follows one session's rounds of suggestions. It is safe for
// concurrent use.
type Tracker struct {
	opts Options

	mu         sync.Mutex
	pending    *Record
	current    int
	trigger    int
	fetchStart time.Time
	fetchEnd   time.Time
}

// NewTracker returns a Tracker for one session.
func NewTracker(opts Options) *Tracker {
	if opts.SkipPrefix == "" {
		opts.SkipPrefix = DefaultSkipPrefix
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Tracker{opts: opts, current: -1, trigger: -1}
}

// Fetching marks that suggestions are being asked for, after block
// triggerBlock completed: the fetch's start.
func (t *Tracker) Fetching(triggerBlock int) {
	now := t.opts.Now()
	t.mu.Lock()
	t.fetchStart, t.trigger = now, triggerBlock
	t.mu.Unlock()
}

// Fetched starts a round with the suggestions the model returned for the
// context, and the call as made and answered; the first suggestion is
// shown, so it counts as viewed. A round not submitted is replaced. The
// Tracker keeps the maps: do not change them afterwards.
func (t *Tracker) Fetched(context map[string]any, suggestions []string, llmRequest, llmResponse map[string]any, version string) {
	now := t.opts.Now()
	blocks := 0
	if b, ok := context["blocks"].([]any); ok {
		blocks = len(b)
	} else if b, ok := context["blocks"].([]map[string]any); ok {
		blocks = len(b)
	}
	r := &Record{Session: t.opts.Session, Server: t.opts.Server, Context: context, LLMRequest: llmRequest,
		LLMResponse: llmResponse, Suggestions: suggestions, Version: version, ViewedIndices: make([]int, 0, 4),
		DisplayedIndexAtSubmit: -1, MatchType: MatchNone, ContextBlockCount: blocks}
	t.mu.Lock()
	defer t.mu.Unlock()
	start := t.fetchStart
	if start.IsZero() {
		start = now
	}
	r.TriggerBlock = t.trigger
	r.FetchStartTS, r.FetchEndTS = unixSeconds(start), unixSeconds(now)
	r.FetchLatencyMS = millis(now.Sub(start))
	t.current = -1
	if len(suggestions) > 0 {
		t.current = 0
		r.ViewedIndices = append(r.ViewedIndices, 0)
	}
	t.pending, t.fetchEnd, t.fetchStart, t.trigger = r, now, time.Time{}, -1
}

// Next shows the next suggestion (after the last, the first) and returns
// its index; -1 when there are none.
func (t *Tracker) Next() int { return t.cycle(1) }

// Prev shows the previous suggestion (before the first, the last) and
// returns its index; -1 when there are none.
func (t *Tracker) Prev() int { return t.cycle(-1) }

func (t *Tracker) cycle(step int) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pending == nil || len(t.pending.Suggestions) == 0 {
		return -1
	}
	n := len(t.pending.Suggestions)
	switch {
	case t.current < 0 && step > 0:
		t.current = 0
	case t.current < 0:
		t.current = n - 1
	default:
		t.current = ((t.current+step)%n + n) % n
	}
	t.pending.CycleCount++
	t.pending.ViewedIndices = append(t.pending.ViewedIndices, t.current)
	return t.current
}

// Submit finalises the round with what the person submitted and the block
// it created (nil for none), hands the record to the sink without waiting,
// and returns it: the sink reads it in the background, so the caller must
// not change it. It returns nil, and records nothing, when no round is
// pending or the input starts with the skip prefix (which ends the round).
func (t *Tracker) Submit(actualInput string, resultBlock *int) *Record {
	now := t.opts.Now()
	t.mu.Lock()
	r := t.pending
	t.pending = nil
	if r == nil {
		t.mu.Unlock()
		return nil
	}
	if t.opts.SkipPrefix != NoSkip && strings.HasPrefix(actualInput, t.opts.SkipPrefix) {
		t.mu.Unlock()
		return nil
	}
	r.DisplayedIndexAtSubmit = t.current
	r.TimeToActionMS = millis(now.Sub(t.fetchEnd))
	t.current = -1
	t.mu.Unlock()

	r.ID = newID()
	r.ActualInput = actualInput
	r.SubmitTS, r.TS = unixSeconds(now), unixSeconds(now)
	r.ResultBlock = resultBlock
	r.MatchType, r.AcceptedIndex = Classify(actualInput, r.Suggestions)
	if t.opts.Sink != nil {
		t.opts.Sink.Send(r)
	}
	return r
}

// Pending reports whether a round waits for its submit.
func (t *Tracker) Pending() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.pending != nil
}

func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newID is a random id of 16 characters.
func newID() string {
	var b [10]byte
	_, _ = rand.Read(b[:])
	return idEncoding.EncodeToString(b[:])
}
