package ndjson

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/honehq/hone"
)

type got struct {
	line int
	text string
	code string
}

func readAll(t *testing.T, r io.Reader, max int) []got {
	t.Helper()
	rd := NewReader(r, max)
	var out []got
	for {
		n, b, err := rd.Next()
		if err == io.EOF {
			return out
		}
		if err != nil && hone.ErrorCode(err) != hone.ETOOLARGE {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, got{n, string(b), hone.ErrorCode(err)})
		if len(out) > 1000 {
			t.Fatal("no end")
		}
	}
}

func TestReader(t *testing.T) {
	big := strings.Repeat("x", 200<<10)
	for _, tc := range []struct {
		name string
		body string
		max  int
		want []got
	}{
		{"empty", "", 10, nil},
		{"blank lines", "\n \n\r\n", 10, nil},
		{"lines", "{}\n\n [1] \n{\"a\":1}", 10, []got{{1, "{}", ""}, {3, "[1]", ""}, {4, `{"a":1}`, ""}}},
		{"crlf", "{}\r\n{}\r\n", 2, []got{{1, "{}", ""}, {2, "{}", ""}}},
		{"exactly the bound", "12345\n", 5, []got{{1, "12345", ""}}},
		{"one over the bound", "123456\n7\n", 5, []got{{1, "", hone.ETOOLARGE}, {2, "7", ""}}},
		{"last line over the bound", "1\n123456", 5, []got{{1, "1", ""}, {2, "", hone.ETOOLARGE}}},
		{"padding hides nothing", "{}\n" + big + `{"hidden":1}` + "\n{}\n", 1 << 10,
			[]got{{1, "{}", ""}, {2, "", hone.ETOOLARGE}, {3, "{}", ""}}},
		{"long line within the bound", big + "\n{}", 300 << 10, []got{{1, big, ""}, {2, "{}", ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tc.body), iotest.OneByteReader(strings.NewReader(tc.body))} {
				out := readAll(t, r, tc.max)
				if len(out) != len(tc.want) {
					t.Fatalf("got %d lines %v, want %d", len(out), short(out), len(tc.want))
				}
				for i := range out {
					if out[i] != tc.want[i] {
						t.Errorf("line %d: got %v, want %v", i, short(out[i:i+1]), short(tc.want[i:i+1]))
					}
				}
			}
		})
	}
}

func short(gs []got) []got {
	out := make([]got, len(gs))
	for i, g := range gs {
		if len(g.text) > 20 {
			g.text = g.text[:20] + "…"
		}
		out[i] = g
	}
	return out
}

func TestReaderNamesTheBound(t *testing.T) {
	_, _, err := NewReader(strings.NewReader("123456\n"), 5).Next()
	if msg := hone.ErrorMessage(err); !strings.Contains(msg, "line 1") || !strings.Contains(msg, "5 bytes") {
		t.Errorf("message %q does not name the line and the bound", msg)
	}
}

func TestReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	_, _, err := NewReader(iotest.ErrReader(boom), 5).Next()
	if !errors.Is(err, boom) {
		t.Errorf("got %v, want the read error", err)
	}
}
