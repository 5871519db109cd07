package otlp

import (
	"encoding/json"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// attrs looks attributes up in a span's (or record's) attributes first,
// then its resource's.
type attrs struct{ own, resource pcommon.Map }

// value is the attribute key, and whether it is set.
func (a attrs) value(key string) (pcommon.Value, bool) {
	if v, ok := a.own.Get(key); ok {
		return v, true
	}
	if a.resource != (pcommon.Map{}) {
		return a.resource.Get(key)
	}
	return pcommon.Value{}, false
}

// str is the first of keys set, as text; "" when none is.
func (a attrs) str(keys ...string) string {
	for _, k := range keys {
		if v, ok := a.value(k); ok {
			if s := v.AsString(); s != "" {
				return s
			}
		}
	}
	return ""
}

// number is the first of keys set to a number (or a text of one).
func (a attrs) number(keys ...string) (float64, bool) {
	for _, k := range keys {
		v, ok := a.value(k)
		if !ok {
			continue
		}
		switch v.Type() {
		case pcommon.ValueTypeInt:
			return float64(v.Int()), true
		case pcommon.ValueTypeDouble:
			return v.Double(), true
		case pcommon.ValueTypeStr:
			if f, err := strconv.ParseFloat(v.Str(), 64); err == nil {
				return f, true
			}
		}
	}
	return 0, false
}

// structured is the attribute key as a Go value as JSON decodes it: a
// string attribute holding JSON is decoded, a map or slice attribute taken
// as is; nil when it is not set or not JSON.
func (a attrs) structured(key string) any {
	v, ok := a.value(key)
	if !ok {
		return nil
	}
	return decodeValue(v)
}

// decodeValue is v as JSON would decode it, a string holding a JSON object
// or array decoded.
func decodeValue(v pcommon.Value) any {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		s := v.Str()
		if len(s) > 0 && (s[0] == '[' || s[0] == '{') {
			var out any
			if json.Unmarshal([]byte(s), &out) == nil {
				return out
			}
		}
		return s
	case pcommon.ValueTypeMap, pcommon.ValueTypeSlice:
		b, err := json.Marshal(v.AsRaw())
		if err != nil {
			return nil
		}
		var out any
		if json.Unmarshal(b, &out) != nil {
			return nil
		}
		return out
	case pcommon.ValueTypeEmpty:
		return nil
	}
	return v.AsRaw()
}
