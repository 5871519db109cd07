// Package openapi generates an OpenAPI 3.1 document from a face's route
// table, the Go types of what its routes read and answer, and a prose file.
//
// Nothing in the document is written by hand but the prose:
//
//   - component schemas are reflected from Go types (see Component);
//   - each route's operation comes from its server.Route: its method, path
//     and access (Open: no security; its media types are the Doc's, which
//     a test holds to Accepts) and its server.Doc (operationId, tag,
//     parameters, request body, answers by status);
//   - the answers every route of a kind gives (401 without a token, 405 for
//     another method, …) come from Spec.Standard, shared answers,
//     parameters and headers from the Spec's lists;
//   - descriptions, summaries and examples come from the prose file (its
//     format is described in prose.go), keyed by schema, property,
//     component and operationId.
//
// Build writes the document in a stable order: paths in the route table's
// order, an operation's answers by status, schema properties in the Go
// fields' order.
package openapi

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	invopop "github.com/invopop/jsonschema"

	"github.com/honehq/hone/internal/server"
)

// Spec is what a document is generated from.
type Spec struct {
	// Version is the OpenAPI version, such as 3.1.0.
	Version string
	Info    Info
	// Server is the URL of the API, relative to the document's.
	Server string
	// Security is the scheme every operation but the open ones needs.
	Security Security
	// Tags are the operations' groups, in the order to list them.
	Tags []string
	// Routes are the face's routes; each must have a Doc.
	Routes []server.Route
	// Components are the schemas, in the order to list them.
	Components []Component
	// Parameters, Headers and Responses are the shared ones.
	Parameters []Named[server.Param]
	Headers    []Named[server.Header]
	Responses  []Named[server.Response]
	// Standard returns the shared answers a route gives besides its own,
	// by status.
	Standard func(rt server.Route) map[int]string
	// Prose is the prose file, YAML (its format is described in prose.go).
	Prose []byte
}

// Info is the document's title, version and license.
type Info struct {
	Title, Version           string
	License, LicenseIdentity string
}

// Security is an HTTP authentication scheme.
type Security struct {
	Name, Scheme string
}

// Named is a shared component with its name.
type Named[T any] struct {
	Name  string
	Value T
}

// Build generates the document.
func Build(spec Spec) (*Object, error) {
	cs, err := newComponents(spec.Components)
	if err != nil {
		return nil, err
	}
	schemas, err := cs.reflectAll()
	if err != nil {
		return nil, err
	}
	b := &builder{cs: cs, spec: spec}
	info := NewObject("title", spec.Info.Title, "version", spec.Info.Version)
	if spec.Info.License != "" {
		info.Set("license", NewObject("name", spec.Info.License, "identifier", spec.Info.LicenseIdentity))
	}
	doc := NewObject("openapi", spec.Version, "info", info,
		"servers", []any{NewObject("url", spec.Server)},
		"security", []any{NewObject(spec.Security.Name, []any{})})
	var tags []any
	for _, t := range spec.Tags {
		tags = append(tags, NewObject("name", t))
	}
	doc.Set("tags", tags)
	paths, err := b.paths()
	if err != nil {
		return nil, err
	}
	doc.Set("paths", paths)
	components := NewObject("securitySchemes",
		NewObject(spec.Security.Name, NewObject("type", "http", "scheme", spec.Security.Scheme)))
	params := &Object{}
	for _, p := range spec.Parameters {
		o, err := b.param(p.Value)
		if err != nil {
			return nil, fmt.Errorf("openapi: parameter %s: %w", p.Name, err)
		}
		params.Set(p.Name, o)
	}
	headers := &Object{}
	for _, h := range spec.Headers {
		o, err := b.header(h.Value)
		if err != nil {
			return nil, fmt.Errorf("openapi: header %s: %w", h.Name, err)
		}
		headers.Set(h.Name, o)
	}
	responses := &Object{}
	for _, r := range spec.Responses {
		o, err := b.response(r.Value)
		if err != nil {
			return nil, fmt.Errorf("openapi: response %s: %w", r.Name, err)
		}
		responses.Set(r.Name, o)
	}
	components.Set("parameters", params).Set("headers", headers).Set("responses", responses).Set("schemas", schemas)
	doc.Set("components", components)
	if err := applyProse(doc, spec.Prose); err != nil {
		return nil, err
	}
	if err := checkRefs(doc); err != nil {
		return nil, err
	}
	return doc, nil
}

type builder struct {
	cs   *components
	spec Spec
}

// paths are the operations of the routes, by path.
func (b *builder) paths() (*Object, error) {
	paths := &Object{}
	ids := map[string]string{}
	for _, rt := range b.spec.Routes {
		where := rt.Method + " " + rt.Path
		if rt.Doc == nil {
			return nil, fmt.Errorf("openapi: the route %s has no Doc", where)
		}
		if prev, dup := ids[rt.Doc.ID]; dup || rt.Doc.ID == "" {
			return nil, fmt.Errorf("openapi: the route %s has the operationId %q, empty or also %s's", where, rt.Doc.ID, prev)
		}
		ids[rt.Doc.ID] = where
		op, err := b.operation(rt)
		if err != nil {
			return nil, fmt.Errorf("openapi: %s: %w", where, err)
		}
		item := paths.Obj(rt.Path)
		if item == nil {
			item = &Object{}
			paths.Set(rt.Path, item)
		}
		method := strings.ToLower(rt.Method)
		if item.Has(method) {
			return nil, fmt.Errorf("openapi: the route %s is listed twice", where)
		}
		item.Set(method, op)
	}
	return paths, nil
}

func (b *builder) operation(rt server.Route) (*Object, error) {
	d := rt.Doc
	if !slices.Contains(b.spec.Tags, d.Tag) {
		return nil, fmt.Errorf("tag %q is not in the document's tags", d.Tag)
	}
	op := NewObject("tags", []any{d.Tag}, "operationId", d.ID)
	if rt.Open {
		op.Set("security", []any{})
	}
	if len(d.Params) > 0 {
		var params []any
		for _, p := range d.Params {
			o, err := b.param(p)
			if err != nil {
				return nil, err
			}
			params = append(params, o)
		}
		op.Set("parameters", params)
	}
	if d.Body != nil {
		content, err := b.content(d.Body.JSON, d.Body.Media, true)
		if err != nil {
			return nil, fmt.Errorf("request body: %w", err)
		}
		op.Set("requestBody", NewObject("required", !d.Body.Optional, "content", content))
	}
	all := maps.Clone(d.Responses)
	if all == nil {
		all = map[int]server.Response{}
	}
	if b.spec.Standard != nil {
		for status, name := range b.spec.Standard(rt) {
			if _, own := all[status]; !own {
				all[status] = server.Response{Ref: name}
			}
		}
	}
	responses := &Object{}
	for _, status := range slices.Sorted(maps.Keys(all)) {
		o, err := b.response(all[status])
		if err != nil {
			return nil, fmt.Errorf("answer %d: %w", status, err)
		}
		responses.Set(strconv.Itoa(status), o)
	}
	op.Set("responses", responses)
	return op, nil
}

func (b *builder) param(p server.Param) (*Object, error) {
	if p.Ref != "" {
		if !slices.ContainsFunc(b.spec.Parameters, func(n Named[server.Param]) bool { return n.Name == p.Ref }) {
			return nil, fmt.Errorf("no shared parameter %q", p.Ref)
		}
		return NewObject("$ref", "#/components/parameters/"+p.Ref), nil
	}
	if p.Name == "" || !slices.Contains([]string{"path", "query", "header"}, p.In) {
		return nil, fmt.Errorf("parameter %q in %q: want a name, in path, query or header", p.Name, p.In)
	}
	o := NewObject("name", p.Name, "in", p.In)
	if p.Required || p.In == "path" {
		o.Set("required", true)
	}
	if p.AllowEmpty {
		o.Set("allowEmptyValue", true)
	}
	s, err := b.schema(p.Schema, true)
	if err != nil {
		return nil, fmt.Errorf("parameter %s: %w", p.Name, err)
	}
	o.Set("schema", s)
	return o, nil
}

func (b *builder) header(h server.Header) (*Object, error) {
	if h.Ref != "" {
		if !slices.ContainsFunc(b.spec.Headers, func(n Named[server.Header]) bool { return n.Name == h.Ref }) {
			return nil, fmt.Errorf("no shared header %q", h.Ref)
		}
		return NewObject("$ref", "#/components/headers/"+h.Ref), nil
	}
	o := &Object{}
	if h.Required {
		o.Set("required", true)
	}
	s, err := b.schema(h.Schema, false)
	if err != nil {
		return nil, err
	}
	return o.Set("schema", s), nil
}

func (b *builder) response(r server.Response) (*Object, error) {
	if r.Ref != "" {
		if !slices.ContainsFunc(b.spec.Responses, func(n Named[server.Response]) bool { return n.Name == r.Ref }) {
			return nil, fmt.Errorf("no shared answer %q", r.Ref)
		}
		return NewObject("$ref", "#/components/responses/"+r.Ref), nil
	}
	o := &Object{}
	if len(r.Headers) > 0 {
		headers := &Object{}
		for _, name := range slices.Sorted(maps.Keys(r.Headers)) {
			h, err := b.header(r.Headers[name])
			if err != nil {
				return nil, fmt.Errorf("header %s: %w", name, err)
			}
			headers.Set(name, h)
		}
		o.Set("headers", headers)
	}
	if r.JSON != nil || len(r.Media) > 0 {
		content, err := b.content(r.JSON, r.Media, false)
		if err != nil {
			return nil, err
		}
		o.Set("content", content)
	}
	return o, nil
}

// content is the media types of a body: JSON with its schema, the others
// strings.
func (b *builder) content(json any, media []string, request bool) (*Object, error) {
	content := &Object{}
	if json != nil {
		s, err := b.schema(json, request)
		if err != nil {
			return nil, err
		}
		content.Set(server.JSONType, NewObject("schema", s))
	}
	for _, m := range media {
		if m == server.JSONType || content.Has(m) {
			return nil, fmt.Errorf("the media type %s is listed twice", m)
		}
		content.Set(m, NewObject("schema", NewObject("type", "string")))
	}
	return content, nil
}

// schema is the schema of v: a component's by Go type or name, or an
// inline *invopop.Schema.
func (b *builder) schema(v any, request bool) (*Object, error) {
	switch v := v.(type) {
	case nil:
		return nil, fmt.Errorf("no schema")
	case string:
		if !slices.ContainsFunc(b.cs.list, func(c Component) bool { return c.Name == v }) {
			return nil, fmt.Errorf("no component schema %q", v)
		}
		return NewObject("$ref", SchemaRef(v)), nil
	case *invopop.Schema:
		m, err := Marshal(v)
		if err != nil {
			return nil, err
		}
		o, ok := emptySchemas(m).(*Object)
		if !ok {
			return &Object{}, nil
		}
		return o, nil
	}
	return b.typeSchema(reflect.TypeOf(v), request)
}

// typeSchema is the schema of Go type t: a component's, or an array of one.
func (b *builder) typeSchema(t reflect.Type, request bool) (*Object, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Slice && t.Name() == "" {
		items, err := b.typeSchema(t.Elem(), request)
		if err != nil {
			return nil, err
		}
		return NewObject("type", "array", "items", items), nil
	}
	name, ok := b.cs.name(t, request)
	if !ok || t.Name() == "" {
		return nil, fmt.Errorf("the Go type %s is no component's", t)
	}
	return NewObject("$ref", SchemaRef(name)), nil
}

// checkRefs requires every $ref of doc to name a part of it.
func checkRefs(doc *Object) error {
	var bad []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case *Object:
			if ref := v.Str("$ref"); ref != "" && resolve(doc, ref) == nil {
				bad = append(bad, ref)
			}
			for _, k := range v.keys {
				walk(v.vals[k])
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(doc)
	if len(bad) > 0 {
		slices.Sort(bad)
		return fmt.Errorf("openapi: $refs that resolve to nothing: %s", strings.Join(slices.Compact(bad), ", "))
	}
	return nil
}

// resolve returns the value at a local $ref ("#/components/…") of doc.
func resolve(doc *Object, ref string) any {
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	var v any = doc
	for tok := range strings.SplitSeq(ref[2:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		o, ok := v.(*Object)
		if !ok || !o.Has(tok) {
			return nil
		}
		v = o.Get(tok)
	}
	return v
}
