package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"mime"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/honehq/hone"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// Client calls an OpenAI-compatible Chat Completions endpoint, retrying
// transient failures and recording every call. It is safe for concurrent use.
type Client struct {
	cfg  Config
	rec  Recorder
	chat openai.ChatCompletionService
	// rejected holds the schemas the provider refused as response_format,
	// so later calls with them go straight to JSON mode.
	rejected sync.Map
	// completionTokens is set when the bound goes out as
	// max_completion_tokens rather than max_tokens (see fieldMaxTokens).
	completionTokens atomic.Bool
	// meter, when set, is told of every call (see SetMeter).
	meter Meter
}

// New returns a Client for cfg, which must be valid (see Config.Validate).
// rec records every call; it may be nil.
//
// The client ignores the OPENAI_* environment variables read by the
// openai-go SDK: only cfg decides where requests go and which key they carry.
func New(cfg Config, rec Recorder) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	var transport http.RoundTripper = http.DefaultTransport
	if t, ok := transport.(*http.Transport); ok {
		transport = t.Clone()
	}
	chat := openai.NewChatCompletionService(
		option.WithHTTPClient(&http.Client{Transport: transport}),
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(0),
	)
	c := &Client{cfg: cfg, rec: rec, chat: chat}
	c.completionTokens.Store(readsMaxCompletionTokens(cfg.BaseURL))
	return c, nil
}

// Model returns the model used for requests of the given purpose.
func (c *Client) Model(purpose string) string {
	return c.cfg.model(Request{Purpose: purpose})
}

// MaxTokens returns the bound on the answers of the given purpose.
func (c *Client) MaxTokens(purpose string) int {
	return c.cfg.maxTokens(Request{Purpose: purpose})
}

// Complete sends req and returns the whole answer.
func (c *Client) Complete(ctx context.Context, req Request) (*Response, error) {
	return c.call(ctx, req, nil, false, nil, nil)
}

// Stream sends req with streaming on, calls onDelta (if not nil) with each
// piece of content as it arrives, and returns the whole answer at the end.
// A provider that answers a stream request with a single JSON body gets one
// onDelta call with the whole content.
func (c *Client) Stream(ctx context.Context, req Request, onDelta func(string)) (*Response, error) {
	if onDelta == nil {
		onDelta = func(string) {}
	}
	return c.call(ctx, req, nil, true, onDelta, nil)
}

// responseFormat is the response_format of a structured call.
type responseFormat struct {
	jsonObject bool
	schema     *schema
}

func (f *responseFormat) param() map[string]any {
	if f.jsonObject {
		return map[string]any{"type": "json_object"}
	}
	return map[string]any{"type": "json_schema", "json_schema": map[string]any{
		"name": f.schema.name, "strict": f.schema.strict, "schema": f.schema.doc,
	}}
}

// call runs one recorded call. check, if set, validates the content; its
// problem is recorded as the Call's error without failing the call.
func (c *Client) call(ctx context.Context, req Request, format *responseFormat, stream bool, onDelta func(string), check func(string) string) (*Response, error) {
	if err := checkBound(req); err != nil {
		return nil, err
	}
	bound := c.cfg.maxTokens(req)
	completion := c.completionTokens.Load()
	params, err := c.params(req, format, bound, completion)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	rec := &Call{
		ID:        hone.NewID(16),
		Purpose:   req.Purpose,
		CauseType: req.CauseType,
		CauseID:   req.CauseID,
		CreatedAt: start.UTC(),
	}
	resp, err := c.do(ctx, params, stream, onDelta)
	if err != nil && boundFieldRefused(err, boundField(completion)) {
		slog.Default().InfoContext(ctx, "llm: the provider refused the bound's field; sending the other one from now on",
			"refused", boundField(completion), "now", boundField(!completion), "base_url", c.where())
		completion = !completion
		c.completionTokens.Store(completion)
		params, _ = c.params(req, format, bound, completion)
		resp, err = c.do(ctx, params, stream, onDelta)
	}
	rec.Request = c.callRequest(req, format, bound, completion)
	latency := ms(time.Since(start))
	if resp != nil {
		resp.LatencyMS = latency
		resp.CallID = rec.ID
		rec.Response = &CallResponse{RawContent: resp.Content, Model: resp.Model, Usage: resp.Usage, FinishReason: resp.FinishReason, LatencyMS: latency}
		if check != nil {
			if problem := check(resp.Content); problem != "" {
				rec.Error = c.scrub("invalid output: " + problem)
			}
		}
		if err == nil && resp.CutOff() && !keepsCutOff(req, format) {
			err = cutOff(req, resp, bound)
		}
	}
	if err != nil {
		err = c.boundHint(err, req, bound)
		rec.Error = c.scrub(err.Error())
	}
	c.record(ctx, rec)
	c.measure(req, start, resp, rec.Error != "", err)
	return resp, err
}

func boundField(completion bool) string {
	if completion {
		return fieldMaxCompletionTokens
	}
	return fieldMaxTokens
}

func (c *Client) record(ctx context.Context, rec *Call) {
	if c.rec == nil {
		return
	}
	if err := c.rec.RecordCall(context.WithoutCancel(ctx), rec); err != nil {
		slog.Default().ErrorContext(ctx, "llm: recording call failed", "call_id", rec.ID, "purpose", rec.Purpose, "err", c.scrub(err.Error()))
	}
}

// callRequest is the record of what went out: the bound under the name of
// the field it was sent in.
func (c *Client) callRequest(req Request, format *responseFormat, bound int, completion bool) CallRequest {
	r := CallRequest{
		Messages:    slices.Clone(req.Messages),
		Model:       c.cfg.model(req),
		Temperature: req.Temperature,
		TopP:        req.TopP,
		Params:      maps.Clone(req.Params),
	}
	if r.Params == nil && (format != nil || completion) {
		r.Params = map[string]any{}
	}
	if format != nil {
		r.Params["response_format"] = format.param()
	}
	if completion {
		r.Params[fieldMaxCompletionTokens] = bound
	} else {
		r.MaxTokens = &bound
	}
	return r
}

func (c *Client) params(req Request, format *responseFormat, bound int, completion bool) (openai.ChatCompletionNewParams, error) {
	var p openai.ChatCompletionNewParams
	if len(req.Messages) == 0 {
		return p, hone.Errorf(hone.EINVALID, "An LLM request needs at least one message.")
	}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleSystem:
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		case RoleDeveloper:
			p.Messages = append(p.Messages, openai.DeveloperMessage(m.Content))
		case RoleUser:
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		case RoleAssistant:
			p.Messages = append(p.Messages, openai.AssistantMessage(m.Content))
		default:
			return p, hone.Errorf(hone.EINVALID, "Unknown LLM message role %q: use system, developer, user or assistant.", m.Role)
		}
	}
	p.Model = shared.ChatModel(c.cfg.model(req))
	if req.Temperature != nil {
		p.Temperature = openai.Float(*req.Temperature)
	}
	if req.TopP != nil {
		p.TopP = openai.Float(*req.TopP)
	}
	if completion {
		p.MaxCompletionTokens = openai.Int(int64(bound))
	} else {
		p.MaxTokens = openai.Int(int64(bound))
	}
	if format != nil && format.jsonObject {
		p.ResponseFormat.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
	} else if format != nil {
		p.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
			Name:   format.schema.name,
			Strict: openai.Bool(format.schema.strict),
			Schema: format.schema.doc,
		}}
	}
	if len(req.Params) > 0 {
		p.SetExtraFields(maps.Clone(req.Params))
	}
	return p, nil
}

// do runs the attempts of one call.
func (c *Client) do(ctx context.Context, params openai.ChatCompletionNewParams, stream bool, onDelta func(string)) (*Response, error) {
	if stream {
		params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	}
	for n := 0; ; n++ {
		at := &attempt{stream: stream}
		timer := newAttemptTimer(ctx, c.cfg.Timeout)
		var resp *Response
		var delivered bool
		var err error
		if stream {
			resp, delivered, err = c.streamOnce(timer, params, at, onDelta)
		} else {
			resp, err = c.completeOnce(timer.ctx, params, at)
		}
		timedOut := timer.stop()
		switch {
		case err == nil:
			return resp, nil
		case ctx.Err() != nil:
			return nil, c.cancelled(ctx)
		case timedOut:
			return nil, c.timedOut(stream)
		case delivered || n >= c.cfg.MaxRetries || !retryable(err, at):
			return nil, c.failure(err, at, n+1, string(params.Model))
		}
		wait, ok := c.backoff(n, at.header)
		if !ok {
			return nil, c.failure(err, at, n+1, string(params.Model))
		}
		if sleep(ctx, wait) != nil {
			return nil, c.cancelled(ctx)
		}
	}
}

func (c *Client) completeOnce(ctx context.Context, params openai.ChatCompletionNewParams, at *attempt) (*Response, error) {
	comp, err := c.chat.New(ctx, params, option.WithMiddleware(at.capture))
	if err != nil {
		return nil, err
	}
	return response(comp)
}

func (c *Client) streamOnce(timer *attemptTimer, params openai.ChatCompletionNewParams, at *attempt, onDelta func(string)) (*Response, bool, error) {
	s := c.chat.NewStreaming(timer.ctx, params, option.WithMiddleware(at.capture))
	defer s.Close()
	var acc openai.ChatCompletionAccumulator
	delivered := false
	for s.Next() {
		timer.touch()
		chunk := s.Current()
		acc.AddChunk(chunk)
		for _, ch := range chunk.Choices {
			if ch.Index == 0 && ch.Delta.Content != "" {
				delivered = true
				onDelta(ch.Delta.Content)
			}
		}
	}
	if err := s.Err(); err != nil {
		return nil, delivered, err
	}
	if at.jsonBody != nil {
		var comp openai.ChatCompletion
		if err := json.Unmarshal(at.jsonBody, &comp); err != nil {
			return nil, delivered, err
		}
		resp, err := response(&comp)
		if err == nil && resp.Content != "" {
			onDelta(resp.Content)
		}
		return resp, true, err
	}
	resp, err := response(&acc.ChatCompletion)
	return resp, delivered, err
}

func response(comp *openai.ChatCompletion) (*Response, error) {
	if len(comp.Choices) == 0 {
		return nil, errNoChoices
	}
	ch := comp.Choices[0]
	return &Response{
		Content:      ch.Message.Content,
		Model:        comp.Model,
		FinishReason: string(ch.FinishReason),
		Usage: Usage{
			PromptTokens:     comp.Usage.PromptTokens,
			CompletionTokens: comp.Usage.CompletionTokens,
			TotalTokens:      comp.Usage.TotalTokens,
		},
	}, nil
}

// attempt holds what one HTTP attempt got back, captured by a middleware so
// that failures can be told apart whatever the SDK made of the body.
type attempt struct {
	stream   bool
	status   int
	header   http.Header
	body     []byte
	jsonBody []byte
}

func (a *attempt) capture(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if res == nil {
		return res, err
	}
	a.status = res.StatusCode
	a.header = res.Header.Clone()
	switch {
	case res.StatusCode >= 400:
		a.body, _ = io.ReadAll(io.LimitReader(res.Body, 1<<20))
		res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(a.body))
	case a.stream && isJSON(res.Header):
		b, rerr := io.ReadAll(io.LimitReader(res.Body, 64<<20))
		res.Body.Close()
		if rerr != nil {
			return nil, rerr
		}
		a.jsonBody = b
		res.Body = io.NopCloser(bytes.NewReader(nil))
	}
	return res, err
}

func isJSON(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "application/json"
}
