package llm

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
)

// Generate asks for an answer shaped like T, hone's counterpart of a DSPy
// signature. T must be a struct; its JSON schema (see Schema) goes out as
// response_format json_schema. When the provider rejects that, or
// Config.JSONMode is set, it falls back to response_format json_object with
// the schema in the system message. The answer is validated against the
// schema and decoded into T. An invalid answer gets one repair attempt; if
// that fails too the error is an *OutputError. An answer cut off at its
// bound (see Config.MaxTokens) is an *OutputError at once. Every attempt is
// recorded.
func Generate[T any](ctx context.Context, c *Client, req Request) (T, *Response, error) {
	var out T
	s, err := schemaFor(reflect.TypeFor[T]())
	if err != nil {
		return out, nil, err
	}
	resp, text, err := c.structured(ctx, req, s)
	if err != nil {
		return out, resp, err
	}
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		return out, resp, &OutputError{Purpose: req.Purpose, Raw: resp.Content, Problem: "the JSON does not fit the Go type: " + err.Error()}
	}
	return out, resp, nil
}

// structured runs the calls of Generate and returns the valid JSON text.
func (c *Client) structured(ctx context.Context, req Request, s *schema) (*Response, string, error) {
	_, rejected := c.rejected.Load(s)
	jsonMode := c.cfg.JSONMode || rejected
	first := withSchema(req, s, jsonMode)
	resp, text, problem, err := c.structuredOnce(ctx, first, s, jsonMode)
	if err != nil && !jsonMode && schemaRejected(err) {
		c.rejected.Store(s, true)
		jsonMode = true
		first = withSchema(req, s, true)
		resp, text, problem, err = c.structuredOnce(ctx, first, s, true)
	}
	if err != nil || problem == "" {
		return resp, text, err
	}
	repair := first
	repair.Messages = append(slices.Clone(first.Messages),
		Message{Role: RoleAssistant, Content: resp.Content},
		Message{Role: RoleUser, Content: "Your answer is not valid: " + problem +
			"\nReply with only the corrected JSON object, no other text. It must match this JSON schema:\n" + s.text},
	)
	resp, text, problem, err = c.structuredOnce(ctx, repair, s, jsonMode)
	if err != nil {
		return resp, "", err
	}
	if problem != "" {
		return resp, "", &OutputError{Purpose: req.Purpose, Raw: resp.Content, Problem: problem}
	}
	return resp, text, nil
}

func (c *Client) structuredOnce(ctx context.Context, req Request, s *schema, jsonMode bool) (*Response, string, string, error) {
	var text, problem string
	check := func(content string) string {
		text, problem = s.validate(content)
		return problem
	}
	resp, err := c.call(ctx, req, &responseFormat{jsonObject: jsonMode, schema: s}, false, nil, check)
	return resp, text, problem, err
}

// withSchema returns req with, in JSON mode, the schema added to its system
// message.
func withSchema(req Request, s *schema, jsonMode bool) Request {
	if !jsonMode {
		return req
	}
	instructions := "Answer with a single JSON object only, no other text. It must match this JSON schema:\n" + s.text
	msgs := slices.Clone(req.Messages)
	if len(msgs) > 0 && msgs[0].Role == RoleSystem {
		msgs[0].Content = strings.TrimRight(msgs[0].Content, "\n") + "\n\n" + instructions
	} else {
		msgs = slices.Insert(msgs, 0, Message{Role: RoleSystem, Content: instructions})
	}
	req.Messages = msgs
	return req
}

// schemaRejected reports whether err is the provider refusing
// response_format json_schema.
func schemaRejected(err error) bool {
	var ce *callError
	if !errors.As(err, &ce) || (ce.status != 400 && ce.status != 422) {
		return false
	}
	body := strings.ToLower(ce.body)
	return strings.Contains(body, "response_format") || strings.Contains(body, "json_schema")
}
