package openapi

import (
	"slices"
	"strings"
)

// Undescribed lists the parts of doc that have no description but should:
// every tag, component schema and property of one (at any depth), every
// operation's summary and description, and every parameter, header and
// answer of its own or shared.
func Undescribed(doc *Object) []string {
	var out []string
	need := func(o *Object, at string, keys ...string) {
		for _, k := range keys {
			if s, _ := o.Get(k).(string); strings.TrimSpace(s) == "" {
				out = append(out, at+": no "+k)
			}
		}
	}
	tags, _ := doc.Get("tags").([]any)
	for _, t := range tags {
		t := t.(*Object)
		need(t, "tag "+t.Str("name"), "description")
	}
	components := doc.Obj("components")
	schemas := components.Obj("schemas")
	for _, name := range schemas.Keys() {
		s := schemas.Obj(name)
		need(s, "schema "+name, "description")
		properties(s, "schema "+name, need)
	}
	for _, kind := range []string{"parameters", "headers", "responses"} {
		list := components.Obj(kind)
		for _, name := range list.Keys() {
			c := list.Obj(name)
			need(c, kind+" "+name, "description")
			headers(c, kind+" "+name, need)
		}
	}
	paths := doc.Obj("paths")
	for _, p := range paths.Keys() {
		item := paths.Obj(p)
		for _, m := range item.Keys() {
			op := item.Obj(m)
			at := strings.ToUpper(m) + " " + p
			need(op, at, "summary", "description")
			params, _ := op.Get("parameters").([]any)
			for _, prm := range params {
				if prm := prm.(*Object); !prm.Has("$ref") {
					need(prm, at+" parameter "+prm.Str("name"), "description")
				}
			}
			responses := op.Obj("responses")
			for _, status := range responses.Keys() {
				r := responses.Obj(status)
				if !r.Has("$ref") {
					need(r, at+" "+status, "description")
					headers(r, at+" "+status, need)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// properties requires a description of every property of s and of the
// objects in it, but those that are only a $ref (the component describes
// itself).
func properties(s *Object, at string, need func(*Object, string, ...string)) {
	if s == nil {
		return
	}
	props := s.Obj("properties")
	for _, name := range props.Keys() {
		p := props.Obj(name)
		where := at + "." + name
		if p.Has("$ref") && p.Len() == 1 {
			continue
		}
		need(p, where, "description")
		properties(p, where, need)
		properties(p.Obj("items"), where+"[]", need)
	}
}

// headers requires a description of every header of an answer of its own.
func headers(r *Object, at string, need func(*Object, string, ...string)) {
	hs := r.Obj("headers")
	for _, name := range hs.Keys() {
		if h := hs.Obj(name); !h.Has("$ref") {
			need(h, at+" header "+name, "description")
		}
	}
}
