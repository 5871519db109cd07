package auth

import (
	"context"
	"log/slog"
	"math"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/honehq/hone"
)

// Defaults of a Throttle: a client address may fail 20 times in a burst,
// then once every 3 seconds (20 a minute).
const (
	DefaultFailBurst = 20
	DefaultFailEvery = 3 * time.Second
	// maxClients bounds the addresses a Throttle remembers.
	maxClients = 100_000
)

// Throttle limits failed attempts at a credential (the API token, a
// sign-in link, a workshop join link or member token, a signed download
// link) per client address, so that nobody can guess one: after Burst
// failures an address may fail once every Every, and is answered 429 with
// Retry-After until then. The first refusal of a burst is logged, without
// the value that was tried.
type Throttle struct {
	now func() time.Time

	mu      sync.Mutex
	burst   int
	every   time.Duration
	off     bool
	log     *slog.Logger
	clients map[string]*attempts
}

// attempts is what a Throttle knows of one address: the failures it may
// still make as of at, and whether its refusal was logged.
type attempts struct {
	left   float64
	at     time.Time
	logged bool
}

// NewThrottle returns a Throttle with the default limits that logs to log
// and reads the time from now (time.Now when nil).
func NewThrottle(log *slog.Logger, now func() time.Time) *Throttle {
	if now == nil {
		now = time.Now
	}
	return &Throttle{burst: DefaultFailBurst, every: DefaultFailEvery, now: now, log: log}
}

// SetLimits changes the limits: burst failures at once, then one every
// every. A burst below 1 switches the limit off.
func (t *Throttle) SetLimits(burst int, every time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.burst, t.every, t.off = burst, every, burst < 1
	clear(t.clients)
}

// SetLog sends the throttle's log lines to log.
func (t *Throttle) SetLog(log *slog.Logger) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.log = log
}

// TooManyError refuses a client that failed too often; RetryAfter says for
// how many seconds.
type TooManyError struct {
	Seconds int
	err     *hone.Error
}

func (e *TooManyError) Error() string { return e.err.Error() }

// RetryAfter is the seconds to wait, for the Retry-After header.
func (e *TooManyError) RetryAfter() int { return e.Seconds }

// Unwrap gives the error's code and message.
func (e *TooManyError) Unwrap() error { return e.err }

// Check returns a *TooManyError when r's address may not try a credential
// now, else nil. A nil Throttle allows everything.
func (t *Throttle) Check(r *http.Request) error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.off {
		return nil
	}
	a := t.refill(clientAddr(r))
	if a == nil || a.left >= 1 {
		return nil
	}
	wait := max(1, int(math.Ceil((1-a.left)*t.every.Seconds())))
	return &TooManyError{Seconds: wait, err: hone.Errorf(hone.ETOOMANY,
		"too many failed attempts from your address: wait %d seconds before you try again", wait)}
}

// Fail records a failed attempt at the credential kind from r's address,
// and logs the first refusal of a burst.
func (t *Throttle) Fail(ctx context.Context, r *http.Request, kind string) {
	if t == nil {
		return
	}
	addr := clientAddr(r)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.off {
		return
	}
	a := t.refill(addr)
	if a == nil {
		if len(t.clients) >= maxClients {
			t.forgetRested()
		}
		a = &attempts{left: float64(t.burst), at: t.now()}
		if t.clients == nil {
			t.clients = map[string]*attempts{}
		}
		t.clients[addr] = a
	}
	a.left = max(a.left-1, 0)
	if a.left < 1 && !a.logged && t.log != nil {
		a.logged = true
		t.log.WarnContext(ctx, "too many failed attempts at a credential; the address must wait", "client", addr, "credential", kind,
			"failures", t.burst, "then_one_every", t.every.String())
	}
}

// refill brings addr's allowance up to now and returns it, or nil when the
// address is unknown or rested (its allowance full again, then forgotten).
func (t *Throttle) refill(addr string) *attempts {
	a := t.clients[addr]
	if a == nil {
		return nil
	}
	now := t.now()
	if t.every > 0 && now.After(a.at) {
		a.left += float64(now.Sub(a.at)) / float64(t.every)
	}
	a.at = now
	if a.left >= float64(t.burst) {
		delete(t.clients, addr)
		return nil
	}
	return a
}

// forgetRested forgets the addresses whose allowance is full again, or, if
// none is, the whole table: a flood of addresses must not grow it forever.
func (t *Throttle) forgetRested() {
	for addr := range t.clients {
		t.refill(addr)
	}
	if len(t.clients) >= maxClients {
		clear(t.clients)
	}
}

// clientAddr is the address r comes from, without its port.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
