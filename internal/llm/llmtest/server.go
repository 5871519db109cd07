// Package llmtest provides an in-process fake of an OpenAI-compatible Chat
// Completions server, and an in-memory call recorder, for tests across hone.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// ChatMessage is one message of a received request. Content made of parts
// is joined into one string.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// UnmarshalJSON accepts content as a string or as an array of text parts.
func (m *ChatMessage) UnmarshalJSON(b []byte) error {
	var v struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	m.Role = v.Role
	m.Content = ""
	if len(v.Content) == 0 || string(v.Content) == "null" {
		return nil
	}
	if err := json.Unmarshal(v.Content, &m.Content); err == nil {
		return nil
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(v.Content, &parts); err != nil {
		return err
	}
	for _, p := range parts {
		m.Content += p.Text
	}
	return nil
}

// ResponseFormat is the response_format of a received request.
type ResponseFormat struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name   string          `json:"name"`
		Strict *bool           `json:"strict"`
		Schema json.RawMessage `json:"schema"`
	} `json:"json_schema"`
}

// ChatRequest is a request the Server received.
type ChatRequest struct {
	Model       string        `json:"model"`
	Messages    []ChatMessage `json:"messages"`
	Stream      bool          `json:"stream"`
	Temperature *float64      `json:"temperature"`
	TopP        *float64      `json:"top_p"`
	MaxTokens   *int          `json:"max_tokens"`
	// MaxCompletionTokens is OpenAI's newer name for MaxTokens.
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	ResponseFormat      *ResponseFormat `json:"response_format"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	// Body is the whole request body, for parameters without a field.
	Body map[string]any `json:"-"`
	// Header is the request's HTTP header.
	Header http.Header `json:"-"`
	// Path is the request's URL path.
	Path string `json:"-"`
}

// Bound returns the bound on the answer the request set, in either field,
// or 0 when it set none.
func (r ChatRequest) Bound() int {
	switch {
	case r.MaxCompletionTokens != nil:
		return *r.MaxCompletionTokens
	case r.MaxTokens != nil:
		return *r.MaxTokens
	}
	return 0
}

// LastUserMessage returns the content of the last user message.
func (r ChatRequest) LastUserMessage() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// Reply is how the Server answers one request.
type Reply struct {
	// Content is the assistant message; it may be anything, malformed JSON
	// included. Unless FinishReason or Chunks is set, Content longer than
	// the request's bound (counted in words, the fake's tokens) is cut to
	// it with finish_reason "length", as a real server does.
	Content string
	// FinishReason defaults to "stop".
	FinishReason string
	// Model defaults to the requested model.
	Model string
	// Usage defaults to word counts of the prompt and the content.
	Usage *Usage
	// Status, when not 0 or 200, makes the reply an HTTP error with Body
	// (default: an OpenAI-style error object) and no completion.
	Status int
	// Body replaces the whole response body, for errors or broken answers.
	Body string
	// Header is added to the response.
	Header http.Header
	// Delay is waited before answering (or before the first chunk).
	Delay time.Duration
	// Chunks splits a streamed answer; by default Content is streamed word
	// by word. ChunkDelay is waited before each chunk after the first.
	Chunks     []string
	ChunkDelay time.Duration
}

// Usage is the token usage the Server reports.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

// Text returns a Reply with the given content.
func Text(content string) Reply { return Reply{Content: content} }

// JSON returns a Reply whose content is v marshalled to JSON.
func JSON(v any) Reply {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return Reply{Content: string(b)}
}

// Error returns a Reply with an HTTP error status and an OpenAI-style error
// body carrying message.
func Error(status int, message string) Reply {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": "error", "code": nil, "param": nil}})
	return Reply{Status: status, Body: string(b)}
}

// RateLimited returns a 429 Reply with the given Retry-After header.
func RateLimited(retryAfter string) Reply {
	r := Error(http.StatusTooManyRequests, "Rate limit reached.")
	r.Header = http.Header{"Retry-After": {retryAfter}}
	return r
}

// Handler answers requests when no scripted Reply is queued.
type Handler func(req ChatRequest) Reply

// Echo is the default Handler: it answers with the last user message.
func Echo(req ChatRequest) Reply { return Reply{Content: req.LastUserMessage()} }

// Option configures a Server.
type Option func(*Server)

// WithAPIKey makes the Server answer 401 unless requests carry
// "Authorization: Bearer key".
func WithAPIKey(key string) Option { return func(s *Server) { s.apiKey = key } }

// WithRefusedParam makes the Server answer 400 to a request that sets the
// body parameter name, in OpenAI's words for a parameter a model does not
// support, as its reasoning models do for max_tokens. Like OpenAI, the
// Server always refuses a request that sets both max_tokens and
// max_completion_tokens. A refused request is listed in Requests and uses
// no queued Reply.
func WithRefusedParam(name string) Option {
	return func(s *Server) { s.refused = append(s.refused, name) }
}

// WithoutRequestLog makes the Server keep none of the requests it
// answers, so that a benchmark of many requests does not grow its heap;
// Requests then returns none.
func WithoutRequestLog() Option { return func(s *Server) { s.forget = true } }

// Server is a fake OpenAI-compatible Chat Completions server. It answers
// with queued Replies first, then with its Handler. It is safe for
// concurrent use.
type Server struct {
	// URL is the base URL, ending in /v1, to use as HONE_LLM_BASE_URL.
	URL string

	mu       sync.Mutex
	handler  Handler
	queue    []Reply
	requests []ChatRequest
	apiKey   string
	refused  []string
	forget   bool
	models   []string
	srv      *httptest.Server
	seq      int
}

// New starts a Server that is closed when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := Start(opts...)
	t.Cleanup(s.Close)
	return s
}

// Start starts a Server outside a test, such as in a helper process of
// one; Close stops it.
func Start(opts ...Option) *Server {
	s := &Server{handler: Echo, models: []string{"fake-model"}}
	for _, o := range opts {
		o(s)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close stops the Server.
func (s *Server) Close() { s.srv.Close() }

// Push queues Replies, used in order for the next requests.
func (s *Server) Push(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// SetHandler replaces the Handler used when no Reply is queued.
func (s *Server) SetHandler(h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = h
}

// Requests returns the chat completion requests received so far.
func (s *Server) Requests() []ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ChatRequest, len(s.requests))
	copy(out, s.requests)
	return out
}

func (s *Server) record(req ChatRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keep(req)
}

// keep adds req to the requests kept, unless the Server keeps none; s.mu
// is held.
func (s *Server) keep(req ChatRequest) {
	if !s.forget {
		s.requests = append(s.requests, req)
	}
}

// Pending returns the number of queued Replies not yet used.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/v1")
	if s.apiKey != "" && r.Header.Get("Authorization") != "Bearer "+s.apiKey {
		writeError(w, Error(http.StatusUnauthorized, "Incorrect API key provided."))
		return
	}
	switch {
	case path == "/models" && r.Method == http.MethodGet:
		s.serveModels(w)
	case path == "/chat/completions" && r.Method == http.MethodPost:
		s.serveChat(w, r)
	default:
		writeError(w, Error(http.StatusNotFound, "Unknown request URL: "+r.Method+" "+r.URL.Path))
	}
}

func (s *Server) serveModels(w http.ResponseWriter) {
	data := []map[string]any{}
	for _, m := range s.models {
		data = append(data, map[string]any{"id": m, "object": "model", "created": 0, "owned_by": "llmtest"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, Error(http.StatusBadRequest, "Could not read the body."))
		return
	}
	var req ChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, Error(http.StatusBadRequest, "Invalid JSON body: "+err.Error()))
		return
	}
	_ = json.Unmarshal(body, &req.Body)
	req.Header = r.Header.Clone()
	req.Path = r.URL.Path
	if req.MaxTokens != nil && req.MaxCompletionTokens != nil {
		s.record(req)
		writeError(w, Error(http.StatusBadRequest, "Setting 'max_tokens' and 'max_completion_tokens' at the same time is not supported."))
		return
	}
	for _, name := range s.refused {
		if _, ok := req.Body[name]; ok {
			s.record(req)
			msg := fmt.Sprintf("Unsupported parameter: '%s' is not supported with this model.", name)
			if name == "max_tokens" {
				msg += " Use 'max_completion_tokens' instead."
			}
			writeError(w, Error(http.StatusBadRequest, msg))
			return
		}
	}

	s.mu.Lock()
	s.keep(req)
	s.seq++
	id := fmt.Sprintf("chatcmpl-llmtest-%d", s.seq)
	var reply Reply
	if len(s.queue) > 0 {
		reply = s.queue[0]
		s.queue = s.queue[1:]
	} else {
		reply = s.handler(req)
	}
	s.mu.Unlock()

	if !wait(r, reply.Delay) {
		return
	}
	for k, vs := range reply.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply)
		return
	}
	if reply.Body != "" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, reply.Body)
		return
	}
	if reply.Model == "" {
		reply.Model = req.Model
	}
	if words := strings.Fields(reply.Content); req.Bound() > 0 && len(words) > req.Bound() && reply.FinishReason == "" && reply.Chunks == nil {
		reply.Content = strings.Join(words[:req.Bound()], " ")
		reply.FinishReason = "length"
	}
	if reply.FinishReason == "" {
		reply.FinishReason = "stop"
	}
	if reply.Usage == nil {
		reply.Usage = countUsage(req, reply.Content)
	}
	if req.Stream {
		writeStream(w, r, id, req, reply)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id":      id,
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   reply.Model,
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": reply.Content, "refusal": nil},
			"logprobs":      nil,
			"finish_reason": reply.FinishReason,
		}},
		"usage": reply.Usage,
	})
}

func writeStream(w http.ResponseWriter, r *http.Request, id string, req ChatRequest, reply Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	created := time.Now().Unix()
	send := func(choices []any, usage *Usage) {
		chunk := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": reply.Model, "choices": choices}
		if usage != nil {
			chunk["usage"] = usage
		}
		b, _ := json.Marshal(chunk)
		_, _ = fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	choice := func(delta map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}
	}
	chunks := reply.Chunks
	if chunks == nil {
		chunks = splitWords(reply.Content)
	}
	send(choice(map[string]any{"role": "assistant", "content": ""}, nil), nil)
	for i, c := range chunks {
		if i > 0 && !wait(r, reply.ChunkDelay) {
			return
		}
		send(choice(map[string]any{"content": c}, nil), nil)
	}
	send(choice(map[string]any{}, reply.FinishReason), nil)
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		send([]any{}, reply.Usage)
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

func writeError(w http.ResponseWriter, reply Reply) {
	status := reply.Status
	if status == 0 {
		status = http.StatusInternalServerError
	}
	body := reply.Body
	if body == "" {
		body = Error(status, http.StatusText(status)).Body
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// wait sleeps for d unless the client goes away first; it reports whether
// the client is still there.
func wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// splitWords splits s into pieces that keep their trailing spaces, so that
// joining them gives s back.
func splitWords(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func countUsage(req ChatRequest, content string) *Usage {
	var prompt int64
	for _, m := range req.Messages {
		prompt += int64(len(strings.Fields(m.Content))) + 1
	}
	completion := int64(len(strings.Fields(content)))
	return &Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
}
