// Package proxy is hone's OpenAI-compatible recording proxy: an application
// points its base URL at hone, hone forwards each request to the upstream
// model unchanged and passes the answer back as it arrives (streams chunk
// by chunk), and records the exchange as a turn off the request path.
package proxy

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/chat"
)

// Paths the proxy serves, under hone's listener.
const (
	PathChat      = "/v1/chat/completions"
	PathResponses = "/v1/responses"
	PathModels    = "/v1/models"
)

// Patterns are the net/http patterns of the proxy's routes.
var Patterns = []string{PathChat, PathResponses, PathModels, PathModels + "/"}

// MaxRequestBytes is the largest request body the proxy takes.
const MaxRequestBytes = 32 << 20

// maxRecordBytes bounds what the proxy keeps of one answer to record it.
const maxRecordBytes = 8 << 20

// TokenChecker is hone's sign-in: auth.Auth.
type TokenChecker interface {
	Enabled() bool
	CheckToken(token string) bool
}

// HostChecker tells the hosts hone answers to: server.Hosts.
type HostChecker interface {
	Allow(host string) bool
}

// Router answers hone's chat commands: chat.Router.
type Router interface {
	IsCommand(text string) bool
	Handle(ctx context.Context, m chat.Message) (chat.Reply, error)
}

// Options configure a Proxy.
type Options struct {
	// Upstream is the OpenAI-compatible base URL requests go to, such as
	// https://api.openai.com/v1; /v1 of a request's path stands for it.
	Upstream *url.URL
	// UpstreamKey, when set, replaces the caller's Authorization.
	UpstreamKey string
	// Auth, when it is enabled, makes the proxy want hone's token or one of
	// Keys as the caller's bearer token.
	Auth TokenChecker
	Keys []string
	// Hosts, when set, refuses a request to a host hone does not answer to
	// (a page of another site that had its name resolve to hone).
	Hosts HostChecker
	// Turns records the exchanges; Queue bounds how many wait.
	Turns     BatchRecorder
	QueueSize int
	// Router answers chat commands instead of the upstream; nil forwards
	// every message.
	Router Router
	// CorrectionTimeout is how long a 👎 waits for its correction, the
	// message after it that goes to Router too.
	CorrectionTimeout time.Duration
	// Transport reaches the upstream; nil uses one of its own.
	Transport http.RoundTripper
	Log       *slog.Logger
}

// Proxy is the recording proxy.
type Proxy struct {
	opts  Options
	log   *slog.Logger
	rp    *httputil.ReverseProxy
	queue *Queue
	// awaiting are the conversations whose 👎 asked for a correction, by
	// conversation and tester, with when it asked.
	awaiting sync.Map
}

// New returns a Proxy to opts.Upstream.
func New(opts Options) (*Proxy, error) {
	if opts.Upstream == nil || (opts.Upstream.Scheme != "http" && opts.Upstream.Scheme != "https") || opts.Upstream.Host == "" {
		return nil, hone.FieldError("HONE_UPSTREAM_URL", "the upstream must be an http(s) base URL such as https://api.openai.com/v1")
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.CorrectionTimeout <= 0 {
		opts.CorrectionTimeout = 10 * time.Minute
	}
	if opts.Transport == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConns, t.MaxIdleConnsPerHost = 1024, 256
		opts.Transport = t
	}
	p := &Proxy{opts: opts, log: opts.Log, queue: NewQueue(opts.Turns, opts.QueueSize, opts.Log)}
	// FlushInterval is left at 0: the reverse proxy flushes an SSE stream
	// or an answer of unknown length after every write by itself, and an
	// answer of known length goes out in one write rather than its headers
	// first.
	p.rp = &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		Transport:      opts.Transport,
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.upstreamError,
		ErrorLog:       slog.NewLogLogger(opts.Log.Handler(), slog.LevelDebug),
		BufferPool:     bufferPool{},
	}
	return p, nil
}

// Queue is the proxy's recording queue.
func (p *Proxy) Queue() *Queue { return p.queue }

// ServeHTTP serves the proxy's routes.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p.opts.Hosts != nil && !p.opts.Hosts.Allow(r.Host) {
		writeError(w, http.StatusForbidden, "host_not_allowed", "hone does not answer to the host "+strconv.Quote(r.Host)+
			": without HONE_API_TOKEN it answers only to localhost, the addresses it listens on and the host of HONE_PUBLIC_URL")
		return
	}
	if !p.allowed(r) {
		writeError(w, http.StatusUnauthorized, "invalid_api_key",
			"hone wants its API token or one of its proxy keys (HONE_PROXY_KEYS) as the bearer token")
		return
	}
	switch {
	case r.URL.Path == PathChat || r.URL.Path == PathResponses:
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", r.URL.Path+" takes POST")
			return
		}
		p.exchange(w, r)
	case r.Method != http.MethodGet:
		w.Header().Set("Allow", http.MethodGet)
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", r.URL.Path+" takes GET")
	default:
		p.rp.ServeHTTP(w, r)
	}
}

// allowed reports whether the caller may use the proxy: anyone without
// hone's token, else a caller presenting it or a proxy key.
func (p *Proxy) allowed(r *http.Request) bool {
	if p.opts.Auth == nil || !p.opts.Auth.Enabled() {
		return true
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || token == "" {
		return false
	}
	match := p.opts.Auth.CheckToken(token)
	for _, k := range p.opts.Keys {
		if subtle.ConstantTimeCompare([]byte(token), []byte(k)) == 1 {
			match = true
		}
	}
	return match
}

// exchange serves a chat completion or a response: a chat command hone
// answers itself, anything else forwarded and recorded.
func (p *Proxy) exchange(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, "request_too_large",
				"the request is larger than "+strconv.Itoa(MaxRequestBytes>>20)+" MiB")
			return
		}
		writeError(w, http.StatusBadRequest, "invalid_request", "hone could not read the request")
		return
	}
	x := newExchange(r, body)
	if x.parsed && p.command(w, r, x) {
		return
	}
	p.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, x)))
}

// preallocBytes is the most a request's announced length reserves before
// its bytes arrive: a larger body grows as it is read, so that a length
// announced but never sent costs nothing.
const preallocBytes = 64 << 10

// readBody reads a request's body, up to MaxRequestBytes, into a buffer of
// its announced length (up to preallocBytes).
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, min(max(r.ContentLength, 0), preallocBytes)+bytes.MinRead))
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
	return buf.Bytes(), err
}

type exchangeKey struct{}

// exchangeOf is the exchange a request to the upstream belongs to; nil for
// a request hone does not record.
func exchangeOf(r *http.Request) *exchange {
	x, _ := r.Context().Value(exchangeKey{}).(*exchange)
	if x == nil || !x.parsed {
		return nil
	}
	return x
}

// rewrite points a request at the upstream: its path under the upstream's
// base, hone's own headers and the caller's key taken out (the upstream key
// put in when there is one), the body as read.
func (p *Proxy) rewrite(pr *httputil.ProxyRequest) {
	up := p.opts.Upstream
	out := pr.Out
	out.URL.Scheme, out.URL.Host = up.Scheme, up.Host
	out.URL.Path = strings.TrimSuffix(up.Path, "/") + strings.TrimPrefix(pr.In.URL.Path, "/v1")
	out.URL.RawPath = ""
	switch {
	case up.RawQuery != "" && out.URL.RawQuery != "":
		out.URL.RawQuery = up.RawQuery + "&" + out.URL.RawQuery
	case up.RawQuery != "":
		out.URL.RawQuery = up.RawQuery
	}
	out.Host = ""
	for k := range out.Header {
		if strings.HasPrefix(k, "X-Hone-") {
			delete(out.Header, k)
		}
	}
	out.Header.Del("Accept-Encoding")
	switch {
	case p.opts.UpstreamKey != "":
		out.Header.Set("Authorization", "Bearer "+p.opts.UpstreamKey)
	case p.opts.Auth != nil && p.opts.Auth.Enabled():
		out.Header.Del("Authorization")
	}
	if x, _ := pr.In.Context().Value(exchangeKey{}).(*exchange); x != nil {
		body := x.forward
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		out.ContentLength = int64(len(body))
		out.Header.Set("Content-Length", strconv.Itoa(len(body)))
	}
}

// modifyResponse taps the upstream's answer to record it as it passes.
func (p *Proxy) modifyResponse(res *http.Response) error {
	x := exchangeOf(res.Request)
	if x == nil || (x.kind == kindResponses && res.StatusCode == http.StatusNotFound) {
		return nil
	}
	res.Header.Set(HeaderTurnID, x.id)
	x.status = res.StatusCode
	res.Body = x.tap(p, res)
	if x.stripUsage {
		res.Header.Del("Content-Length")
		res.ContentLength = -1
	}
	return nil
}

// upstreamError answers a request the upstream did not answer: 504 when it
// timed out, 502 otherwise, in OpenAI's error format; the exchange is
// recorded as failed.
func (p *Proxy) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := http.StatusBadGateway, "hone could not reach the upstream: "+err.Error()
	var ne net.Error
	switch {
	case r.Context().Err() != nil:
		status, msg = 499, "the caller went away before the upstream answered"
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		status, msg = http.StatusGatewayTimeout, "the upstream did not answer in time: "+err.Error()
	}
	if x := exchangeOf(r); x != nil {
		x.status = status
		p.finish(x, msg)
		w.Header().Set(HeaderTurnID, x.id)
	}
	if r.Context().Err() != nil {
		return
	}
	p.log.Warn("proxy: the upstream did not answer", "path", r.URL.Path, "err", err)
	writeError(w, status, "upstream_error", msg)
}

// writeError answers an error in OpenAI's format.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": msg, "type": "hone_proxy_error", "code": code, "param": nil}})
}

// bufferPool lends the reverse proxy its copy buffers.
type bufferPool struct{}

var buffers = sync.Pool{New: func() any { b := make([]byte, 8<<10); return &b }}

func (bufferPool) Get() []byte  { return *(buffers.Get().(*[]byte)) }
func (bufferPool) Put(b []byte) { buffers.Put(&b) }
