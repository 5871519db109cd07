package server

import invopop "github.com/invopop/jsonschema"

// Doc documents a route of a JSON face for the OpenAPI document generated
// from the route table (internal/api/openapi): what the operation takes and
// answers. Its prose (summary, description, the descriptions of its own
// parameters and answers, examples) is kept apart, under its ID, in the
// face's prose file.
type Doc struct {
	// ID is the operationId, unique in the face.
	ID string
	// Tag is the group the operation is listed in.
	Tag string
	// Params are the operation's parameters, in order.
	Params []Param
	// Body is the request body; nil when the route reads none.
	Body *RequestBody
	// Responses are the route's own answers by status. The generator adds
	// the answers every route of its kind gives (the face says which: for
	// the API, 401, 403, 405, 415 and 429 by access, 400, 408 and 413 with
	// a body, 500 and 503) unless a status is listed here.
	Responses map[int]Response
	// NoDatabase marks a route that uses no database and answers neither
	// 500 nor 503.
	NoDatabase bool
}

// Param is a parameter of a route: a shared one by Ref, or its own.
type Param struct {
	// Ref names a shared parameter (components.parameters); the fields
	// below are then left empty.
	Ref  string
	Name string
	// In is "path", "query" or "header".
	In       string
	Required bool
	// AllowEmpty says an empty value counts as left out.
	AllowEmpty bool
	Schema     *invopop.Schema
}

// RequestBody is what a route reads.
type RequestBody struct {
	// JSON is the JSON body's schema: a value of the Go type of a component
	// schema (a request's) or of a slice of one, the name of a component
	// schema, or a *invopop.Schema.
	JSON any
	// Optional says the body may be left out.
	Optional bool
	// Media are the other media types the body may have, each a string the
	// prose describes.
	Media []string
}

// Response is an answer of a route: a shared one by Ref, or its own.
type Response struct {
	// Ref names a shared answer (components.responses); the fields below
	// are then left empty.
	Ref string
	// JSON is the JSON body's schema as in RequestBody.JSON (an answer's); nil
	// for none.
	JSON any
	// Media are the other media types of the body, each a string the prose
	// describes.
	Media []string
	// Headers are the answer's headers, by name.
	Headers map[string]Header
}

// Header is a header of an answer: a shared one by Ref, or its own.
type Header struct {
	// Ref names a shared header (components.headers).
	Ref      string
	Required bool
	Schema   *invopop.Schema
}
