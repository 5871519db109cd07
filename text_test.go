package hone

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestCleanText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain", "plain"},
		{"emoji 🎉 and 中文", "emoji 🎉 and 中文"},
		{"nul\x00here", "nul\uFFFDhere"},
		{"broken \xff\xfe bytes", "broken \uFFFD\uFFFD bytes"},
		{"cut \xe2\x82", "cut \uFFFD\uFFFD"},
		{"\x00", "\uFFFD"},
		{"", ""},
	} {
		got := CleanText(tt.in)
		if got != tt.want || !utf8.ValidString(got) {
			t.Errorf("CleanText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCleanJSON(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"a":"b"}`, `{"a":"b"}`},
		{`{"a":"\u0000"}`, `{"a":"\ufffd"}`},
		{`["x\u0000y", "\u00e9"]`, `["x\ufffdy", "\u00e9"]`},
		{`"\\u0000"`, `"\\u0000"`},
		{`"\\\u0000"`, `"\\\ufffd"`},
		{`{"\u0000":1}`, `{"\ufffd":1}`},
		{`"\ud83d\ude00"`, `"\ud83d\ude00"`},
		{`"\ud83d"`, `"\ufffd"`},
		{`"\ud83dx"`, `"\ufffdx"`},
		{`"\ude00\ud83d\ude00"`, `"\ufffd\ud83d\ude00"`},
		{`"\uD83D\u0041"`, `"\ufffd\u0041"`},
		{"\"bad \xff\"", "\"bad \uFFFD\""},
		{`{"u":"\"\u0000"}`, `{"u":"\"\ufffd"}`},
	} {
		got := string(CleanJSON([]byte(tt.in)))
		if got != tt.want {
			t.Errorf("CleanJSON(%s) = %s, want %s", tt.in, got, tt.want)
		}
		if !json.Valid([]byte(got)) || !utf8.ValidString(got) {
			t.Errorf("CleanJSON(%s) = %s is not valid UTF-8 JSON", tt.in, got)
		}
	}
}

func FuzzCleanJSON(f *testing.F) {
	for _, s := range []string{`{"a":"\u0000"}`, `"\ud800"`, `["\\u0000"]`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		out := CleanJSON(b)
		if !json.Valid(out) || !utf8.Valid(out) || bytes.Contains(out, []byte(`\u0000`)) && !bytes.Contains(b, []byte(`\\u0000`)) {
			t.Fatalf("CleanJSON(%q) = %q", b, out)
		}
	})
}
