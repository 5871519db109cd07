package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/honehq/hone"
)

// Explain returns err, the error of decoding the JSON turn raw, naming the
// message and field that is wrong when it lies inside messages. The JSON
// decoder names such a field without the message's index (messages.role),
// and a field it does not know by its name alone; Explain decodes the
// messages of raw one by one to say messages[2].role or
// messages[0].tool_calls[1].function.x. Otherwise it returns err.
func Explain(raw []byte, err error) error {
	if !strings.HasPrefix(hone.ErrorField(err), "messages") && !strings.HasPrefix(hone.ErrorMessage(err), "unknown field") {
		return err
	}
	var top struct {
		Messages json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(raw, &top) != nil || len(top.Messages) == 0 || top.Messages[0] != '[' {
		return err
	}
	var items []json.RawMessage
	if json.Unmarshal(top.Messages, &items) != nil {
		return err
	}
	for i, item := range items {
		if e := explain(item, indexField("messages", i), &Message{}, explainToolCalls); e != nil {
			return e
		}
	}
	return err
}

// explain decodes raw, the JSON value of field, into v, refusing unknown
// fields, and returns the error naming the place that is wrong: first what
// deeper tells of the values inside raw, then what decoding raw tells.
func explain(raw json.RawMessage, field string, v any, deeper func(raw json.RawMessage, field string) error) error {
	if bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if len(raw) == 0 || raw[0] != '{' {
		return hone.FieldError(field, "%s must be an object", field)
	}
	err := strictDecode(raw, v, field)
	if err == nil {
		return nil
	}
	if deeper != nil {
		if e := deeper(raw, field); e != nil {
			return e
		}
	}
	return err
}

// explainToolCalls explains the tool calls of the message raw, named field.
func explainToolCalls(raw json.RawMessage, field string) error {
	var m struct {
		ToolCalls json.RawMessage `json:"tool_calls"`
	}
	var calls []json.RawMessage
	if json.Unmarshal(raw, &m) != nil || json.Unmarshal(m.ToolCalls, &calls) != nil {
		return nil
	}
	for k, call := range calls {
		if e := explain(call, indexField(field+".tool_calls", k), &ToolCall{}, explainFunction); e != nil {
			return e
		}
	}
	return nil
}

// explainFunction explains the function of the tool call raw, named field.
func explainFunction(raw json.RawMessage, field string) error {
	var c struct {
		Function json.RawMessage `json:"function"`
	}
	if json.Unmarshal(raw, &c) != nil || len(c.Function) == 0 {
		return nil
	}
	return explain(c.Function, field+".function", &FunctionCall{}, nil)
}

// strictDecode decodes the JSON value b into v, refusing unknown fields,
// and names in its error the place inside b that is wrong, below field.
func strictDecode(b []byte, v any, field string) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fieldError(field, err)
	}
	return nil
}

// fieldError is err, a failure to decode the value of field, as an error
// naming the place that is wrong: field itself, or a place inside it.
func fieldError(field string, err error) error {
	var he *hone.Error
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &he):
		return &hone.Error{Code: he.Code, Field: joinField(field, he.Field), Message: he.Message}
	case errors.As(err, &typeErr):
		at := joinField(field, typeErr.Field)
		return hone.FieldError(at, "%s must be %s, not %s", at, kindName(typeErr), typeErr.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
		at := joinField(field, name)
		return hone.FieldError(at, "unknown field %q", at)
	}
	return hone.FieldError(field, "%s is not valid JSON: %v", field, err)
}

// joinField names inner, a place inside field: messages[2] and role make
// messages[2].role.
func joinField(field, inner string) string {
	switch {
	case inner == "":
		return field
	case field == "":
		return inner
	}
	return field + "." + inner
}

// indexField names element i of the array field.
func indexField(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }

// kindName says in words what JSON type a value of the wanted Go type is.
func kindName(e *json.UnmarshalTypeError) string {
	if e.Type == nil {
		return "another type"
	}
	switch e.Type.Kind().String() {
	case "string":
		return "a string"
	case "float64", "float32", "int", "int64":
		return "a number"
	case "bool":
		return "true or false"
	case "map", "struct":
		return "an object"
	case "slice", "array":
		return "an array"
	}
	return "another type"
}
