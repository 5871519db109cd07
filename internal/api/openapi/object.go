package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Object is a JSON object that keeps its keys in the order they were set,
// so that the document reads in the order of the Go types' fields. Its
// values, as those of the arrays in it, are nil, bool, json.Number, string,
// []any and *Object.
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject returns an object of the key, value pairs kv.
func NewObject(kv ...any) *Object {
	o := &Object{}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// Get returns the value of key, or nil.
func (o *Object) Get(key string) any {
	if o == nil {
		return nil
	}
	return o.vals[key]
}

// Has reports whether the object has key.
func (o *Object) Has(key string) bool {
	if o == nil {
		return false
	}
	_, ok := o.vals[key]
	return ok
}

// Obj returns the object at key, or nil.
func (o *Object) Obj(key string) *Object {
	v, _ := o.Get(key).(*Object)
	return v
}

// Str returns the string at key, or "".
func (o *Object) Str(key string) string {
	v, _ := o.Get(key).(string)
	return v
}

// Set sets key to v, at the end when the key is new.
func (o *Object) Set(key string, v any) *Object {
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
	return o
}

// Delete removes key.
func (o *Object) Delete(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	o.keys = slices.DeleteFunc(o.keys, func(k string) bool { return k == key })
}

// Keys are the object's keys in order.
func (o *Object) Keys() []string {
	if o == nil {
		return nil
	}
	return slices.Clone(o.keys)
}

// Len is the number of keys.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// Order moves the keys named first to the front, in that order.
func (o *Object) Order(first ...string) {
	var front []string
	for _, k := range first {
		if o.Has(k) {
			front = append(front, k)
		}
	}
	rest := slices.DeleteFunc(slices.Clone(o.keys), func(k string) bool { return slices.Contains(front, k) })
	o.keys = append(front, rest...)
}

// MarshalJSON writes the object compactly, keys in order.
func (o *Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := write(&b, o, "", ""); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Decode reads one JSON value, keeping the order of object keys.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("openapi: data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &Object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.Set(kt.(string), v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token()
			return list, err
		}
		return nil, fmt.Errorf("openapi: unexpected %v", t)
	default:
		return t, nil
	}
}

// Marshal converts v (any value encoding/json marshals) into the values of
// an Object: *Object, []any, string, json.Number, bool and nil.
func Marshal(v any) (any, error) {
	switch v := v.(type) {
	case *Object, []any, string, json.Number, bool, nil:
		return v, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return Decode(b)
}

// Indent writes v as JSON indented by two spaces, with a final newline,
// leaving <, > and & as they are.
func Indent(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := write(&b, v, "\n", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

func write(b *bytes.Buffer, v any, nl, indent string) error {
	inner := nl + indent
	if nl == "" {
		inner = ""
	}
	sep := ":"
	if nl != "" {
		sep = ": "
	}
	switch v := v.(type) {
	case *Object:
		if v.Len() == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(inner)
			writeString(b, k)
			b.WriteString(sep)
			if err := write(b, v.vals[k], inner, indent); err != nil {
				return err
			}
		}
		b.WriteString(nl)
		b.WriteByte('}')
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(inner)
			if err := write(b, e, inner, indent); err != nil {
				return err
			}
		}
		b.WriteString(nl)
		b.WriteByte(']')
	case string:
		writeString(b, v)
	case json.Number:
		b.WriteString(v.String())
	case bool:
		if v {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case nil:
		b.WriteString("null")
	default:
		return fmt.Errorf("openapi: cannot write a %T", v)
	}
	return nil
}

func writeString(b *bytes.Buffer, s string) {
	var out strings.Builder
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.WriteString(strings.TrimSuffix(out.String(), "\n"))
}
