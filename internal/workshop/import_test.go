package workshop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/honehq/hone"
)

// importCase is a file and what ParseTraces makes of it: each trace as
// "line id=… in=… out=… ctx=… meta=…" (absent parts left out) and each bad
// trace as "line:field", with a piece of its message when msgs has one.
type importCase struct {
	name   string
	format string
	file   string
	traces []string
	bad    []string
	msgs   map[int]string
}

var importCases = []importCase{
	{
		name:   "json values of every kind",
		format: FormatJSON,
		file: `[{"id":"t-1","input":"What is 2+2?","output":"4"},
 {"input":{"messages":[{"role":"user", "content":"hi"}]},"output":["a", "b"],"context":{"doc": 1},"metadata":{"source": "prod"}},
 {"input":0,"output":false,"context":"ctx","id":null,"metadata":null}, {"input":"<b>","output":" r ","context":null,"id":""}]`,
		traces: []string{
			`1 id=t-1 in="What is 2+2?" out="4"`,
			`2 in={"messages":[{"role":"user","content":"hi"}]} out=["a","b"] ctx={"doc":1} meta={"source":"prod"}`,
			`3 in=0 out=false ctx="ctx"`,
			`3 in="<b>" out=" r "`,
		},
	},
	{
		name:   "json pretty-printed with bad elements",
		format: FormatJSON,
		file: `[
  {
    "id": "a",
    "input": "q1",
    "output": "r1"
  },
  {
    "input": "q2",
    "output": "  "
  },
  {
    "input": null,
    "output": "r3"
  },
  {
    "output": "r4"
  },
  {
    "id": "a",
    "input": "q5",
    "output": "r5"
  },
  "just text",
  [1, 2],
  null,
  {
    "input": "q9",
    "output": "r9",
    "question": "?",
    "answer": "!"
  },
  {"input": "q10", "output": "r10", "metadata": [1]},
  {"input": "q11", "output": "r11", "metadata": "m"}, {"input": "q12", "output": "r12", "id": ".x"},
  {"input": "q13", "output": "r13", "id": 7},
  {
    "input": "q14",
    "output": "r14"
  }
]
`,
		traces: []string{`2 id=a in="q1" out="r1"`, `35 in="q14" out="r14"`},
		bad: []string{"7:output", "11:input", "15:input", "18:id", "23:", "24:", "25:", "26:answer", "32:metadata",
			"33:metadata", "33:id", "34:id"},
		msgs: map[int]string{
			3:  `id "a" is given twice in the file (first on line 2)`,
			4:  "not a string",
			5:  "not an array",
			6:  "not null",
			7:  `unknown properties "answer", "question"`,
			8:  "not an array",
			11: "must be a string, not a number",
		},
	},
	{
		name:   "json id of a bad trace still counts",
		format: FormatJSON,
		file:   "[{\"id\":\"d\",\"input\":\"q\"},\n{\"id\":\"d\",\"input\":\"q\",\"output\":\"r\"}]",
		bad:    []string{"1:output", "2:id"},
		msgs:   map[int]string{1: "(first on line 1)"},
	},
	{
		name:   "json ids",
		format: FormatJSON,
		file: fmt.Sprintf("[{\"id\":\"app-42:turn.7_a\",\"input\":1,\"output\":2},\n{\"id\":\"a/b\",\"input\":1,\"output\":2},\n"+
			"{\"id\":\"é\",\"input\":1,\"output\":2},\n{\"id\":%q,\"input\":1,\"output\":2},\n{\"id\":%q,\"input\":1,\"output\":2},\n"+
			"{\"id\":\" a\",\"input\":1,\"output\":2}]", strings.Repeat("b", 128), strings.Repeat("c", 129)),
		traces: []string{"1 id=app-42:turn.7_a in=1 out=2", "4 id=" + strings.Repeat("b", 128) + " in=1 out=2"},
		bad:    []string{"2:id", "3:id", "5:id", "6:id"},
	},
	{
		name:   "json cleaned",
		format: FormatJSON,
		file:   "[{\"input\":\"nul\\u0000 here\",\"output\":\"bad \xff byte\",\"context\":{\"k\":\"\\ud800\"},\"metadata\":{\"m\":\"a\\u0000\"}}]",
		traces: []string{`1 in="nul\ufffd here" out="bad ` + "\uFFFD" + ` byte" ctx={"k":"\ufffd"} meta={"m":"a\ufffd"}`},
	},
	{
		name:   "json with BOM and CRLF",
		format: FormatJSON,
		file:   "\ufeff[\r\n  {\"input\": \"q\",\r\n   \"output\": \"r\"},\r\n  {\"input\": \"\"}\r\n]\r\n",
		traces: []string{`2 in="q" out="r"`},
		bad:    []string{"4:input"},
	},
	{
		name:   "json empty array",
		format: FormatJSON,
		file:   " [\n]\n",
	},
	{
		name:   "jsonl blank lines counted and no final newline",
		format: FormatJSONL,
		file:   "{\"id\":\"a\",\"input\":\"q1\",\"output\":\"r1\"}\n\n   \n{\"input\":{\"m\": [1, 2]},\"output\":\"r2\",\"context\":[1],\"metadata\":{}}\n{\"input\":\"q3\",\"output\":\"r3\"}",
		traces: []string{`1 id=a in="q1" out="r1"`, `4 in={"m":[1,2]} out="r2" ctx=[1] meta={}`, `5 in="q3" out="r3"`},
	},
	{
		name:   "jsonl bad lines",
		format: FormatJSONL,
		file: `{"input":"q","output":"r"}
{"input":"q","output":"r"
[{"input":"q","output":"r"}]
null
{"input":"q","output":"r"} {"input":"q","output":"r"}
"text"
{"input":"q","output":"r","Input":"x"}
{"input":"","output":"r"}
{"input":"q","output":null}
{"input":"q","output":"r","context":null,"metadata":null}
{"input":"q","output":"r","metadata":"x"}
`,
		traces: []string{`1 in="q" out="r"`, `10 in="q" out="r"`},
		bad:    []string{"2:", "3:", "4:", "5:", "6:", "7:Input", "8:input", "9:output", "11:metadata"},
		msgs:   map[int]string{0: "not valid JSON", 1: "not an array", 3: "not valid JSON", 5: `unknown property "Input"`},
	},
	{
		name:   "jsonl with BOM and CRLF",
		format: FormatJSONL,
		file:   "\ufeff{\"input\":\"q\",\"output\":\"r\"}\r\n\r\n{\"id\":\"x\",\"input\":\"q\",\"output\":\"r\"}\r\n{\"id\":\"x\",\"input\":\"q\",\"output\":\"r\"}\r\n",
		traces: []string{`1 in="q" out="r"`, `3 id=x in="q" out="r"`},
		bad:    []string{"4:id"},
		msgs:   map[int]string{0: `id "x" is given twice in the file (first on line 3)`},
	},
	{
		name:   "csv JSON cells and text cells",
		format: FormatCSV,
		file: `id,input,output,context,metadata
a,What is 2+2?,<b>4</b> & more,,
,"{""messages"": [1, 2]}"," [""x""] ",some context,"{""source"": ""prod""}"
,{not json,null,"[1,",null
`,
		traces: []string{
			`2 id=a in="What is 2+2?" out="<b>4</b> & more"`,
			`3 in={"messages":[1,2]} out=["x"] ctx="some context" meta={"source":"prod"}`,
			`4 in="{not json" out="null" ctx="[1,"`,
		},
	},
	{
		name:   "csv multi-line cell before the bad row",
		format: FormatCSV,
		file:   "input,output\n\"first line\nsecond line\nthird line\",r1\nq2,\nq3,r3\n",
		traces: []string{`2 in="first line\nsecond line\nthird line" out="r1"`, `6 in="q3" out="r3"`},
		bad:    []string{"5:output"},
	},
	{
		name:   "csv with BOM, CRLF and a padded header",
		format: FormatCSV,
		file:   "\ufeffInput , OUTPUT,Id\r\n\"multi\r\nline\",r1,x\r\nq2,r2,x\r\nq3,r3\r\n   ,r4,\r\n",
		traces: []string{`2 id=x in="multi\nline" out="r1"`},
		bad:    []string{"4:id", "5:", "6:input"},
		msgs:   map[int]string{0: "(first on line 2)", 1: "the row has 2 cells but the header has 3 columns"},
	},
	{
		name:   "csv cell counts and metadata",
		format: FormatCSV,
		file: `input,output,metadata
q1,r1,"{""a"":1}"
q2,r2,[1]
q3,r3,"""text"""
q4,r4,{bad
q5,r5,
q6,r6,x,extra
q7
`,
		traces: []string{`2 in="q1" out="r1" meta={"a":1}`, `6 in="q5" out="r5"`},
		bad:    []string{"3:metadata", "4:metadata", "5:metadata", "7:", "8:"},
	},
	{
		name:   "csv ids",
		format: FormatCSV,
		file:   "input,id,output\nq1, a ,r1\nq2,a/b,r2\nq3,,r3\nq4,a,r4\n",
		traces: []string{`2 id=a in="q1" out="r1"`, `4 in="q3" out="r3"`},
		bad:    []string{"3:id", "5:id"},
	},
	{
		name:   "csv cleaned",
		format: FormatCSV,
		file:   "input,output,context\nnul\x00x,bad \xff,\"\"\"\xfe\"\"\"\n",
		traces: []string{`2 in="nul` + "\uFFFD" + `x" out="bad ` + "\uFFFD" + `" ctx="\"` + "\uFFFD" + `\""`},
	},
	{
		name:   "csv header only",
		format: FormatCSV,
		file:   "input,output\r\n",
	},
}

// showTrace writes a trace as importCase.traces does.
func showTrace(tr ParsedTrace) string {
	s := fmt.Sprint(tr.Line)
	if tr.ID != "" {
		s += " id=" + tr.ID
	}
	s += fmt.Sprintf(" in=%s out=%s", tr.Input, tr.Output)
	if tr.Context != nil {
		s += fmt.Sprintf(" ctx=%s", tr.Context)
	}
	if tr.Metadata != nil {
		s += fmt.Sprintf(" meta=%s", tr.Metadata)
	}
	return s
}

func TestParseTraces(t *testing.T) {
	for _, tt := range importCases {
		traces, bad, err := ParseTraces(strings.NewReader(tt.file), tt.format)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		var gotTraces, gotBad []string
		for _, tr := range traces {
			gotTraces = append(gotTraces, showTrace(tr))
		}
		for _, b := range bad {
			gotBad = append(gotBad, fmt.Sprintf("%d:%s", b.Line, b.Field))
		}
		if !slices.Equal(gotTraces, tt.traces) {
			t.Errorf("%s: traces\n%s\nwant\n%s", tt.name, strings.Join(gotTraces, "\n"), strings.Join(tt.traces, "\n"))
		}
		if !slices.Equal(gotBad, tt.bad) {
			t.Errorf("%s: bad %q, want %q", tt.name, gotBad, tt.bad)
			continue
		}
		for i, b := range bad {
			if want, ok := tt.msgs[i]; ok && !strings.Contains(b.Message, want) || b.Message == "" {
				t.Errorf("%s: line %d: message %q, want it to hold %q", tt.name, b.Line, b.Message, tt.msgs[i])
			}
		}
	}
}

func TestParseTracesFileErrors(t *testing.T) {
	for _, tt := range []struct {
		name, format, file string
		code, field, msg   string
	}{
		{"json empty", FormatJSON, "", hone.EINVALID, "", "empty"},
		{"json only space", FormatJSON, " \r\n", hone.EINVALID, "", "empty"},
		{"json object", FormatJSON, `{"input":"q","output":"r"}`, hone.EINVALID, "", "must hold an array"},
		{"jsonl as json", FormatJSON, "{\"input\":\"q\",\"output\":\"r\"}\n{\"input\":\"q\",\"output\":\"r\"}\n", hone.EINVALID, "", "must hold an array"},
		{"json syntax error", FormatJSON, "[\n{\"input\":\"q\",\n\"output\" \"r\"}]", hone.EINVALID, "", "(line 3)"},
		{"json missing comma", FormatJSON, "[\n{\"input\":\"q\",\"output\":\"r\"}\n\n{\"input\":\"q\",\"output\":\"r\"}]", hone.EINVALID, "", "(line 4)"},
		{"json trailing comma", FormatJSON, "[{\"input\":\"q\",\"output\":\"r\"},\n]", hone.EINVALID, "", "(line 2)"},
		{"json ends in an element", FormatJSON, "[\n{\"input\":\"q\",\"output\":\"r\"},\n {\"input\":\"q\",", hone.EINVALID, "", "ends inside the trace starting on line 3"},
		{"json ends before the bracket", FormatJSON, "[{\"input\":\"q\",\"output\":\"r\"}\n", hone.EINVALID, "", "ends before the array is closed"},
		{"json after the array", FormatJSON, "[]\n[]", hone.EINVALID, "", "follows the array"},
		{"json BOM twice", FormatJSON, "\ufeff\ufeff[]", hone.EINVALID, "", "(line 1)"},
		{"csv empty", FormatCSV, "", hone.EINVALID, "", "empty"},
		{"csv without output", FormatCSV, "input,id\nq,a\n", hone.EINVALID, "", `no "output" column`},
		{"csv without input", FormatCSV, "output\nr\n", hone.EINVALID, "", `no "input" column`},
		{"csv unknown columns", FormatCSV, "input,output,question,Answer\nq,r,x,y\n", hone.EINVALID, "", `unknown columns "question", "answer"`},
		{"csv column twice", FormatCSV, "input,output,Input\n", hone.EINVALID, "", `column "input" twice`},
		{"csv unnamed column", FormatCSV, "input, ,output\n", hone.EINVALID, "", "column 2 of the CSV header has no name"},
		{"csv bare quote", FormatCSV, "input,output\nq,r\"x\n", hone.EINVALID, "", "line 2, column 4:"},
		{"csv quote after a multi-line cell", FormatCSV, "input,output\nq,\"r\nx\ny\" z\n", hone.EINVALID, "", "line 4, column"},
		{"csv unterminated quote", FormatCSV, "input,output\nq,r\nq,\"r\n\n", hone.EINVALID, "", "line 4, column 2: extraneous or missing \" in quoted-field (in the row starting on line 3)"},
		{"unknown format", "xml", "<traces/>", hone.EINVALID, "format", `unknown import format "xml"`},
		{"no format", "", "[]", hone.EINVALID, "format", "unknown import format"},
	} {
		traces, bad, err := ParseTraces(strings.NewReader(tt.file), tt.format)
		if traces != nil || bad != nil || hone.ErrorCode(err) != tt.code || hone.ErrorField(err) != tt.field ||
			!strings.Contains(hone.ErrorMessage(err), tt.msg) {
			t.Errorf("%s: %d traces, %v, err %v; want %s %q holding %q", tt.name, len(traces), bad, err, tt.code, tt.field, tt.msg)
		}
	}
}

func TestParseTracesTooMany(t *testing.T) {
	repeat := func(s string, n int) string { return strings.Repeat(s, n) }
	const trace = `{"input":"q","output":"r"}`
	for _, tt := range []struct {
		name, format, file string
		traces             int
	}{
		{"jsonl at the limit", FormatJSONL, repeat(trace+"\n", MaxImportTraces), MaxImportTraces},
		{"jsonl over the limit", FormatJSONL, repeat(trace+"\n", MaxImportTraces+1), -1},
		{"jsonl over the limit with bad traces", FormatJSONL, repeat("{}\n", MaxImportTraces+1), -1},
		{"json over the limit", FormatJSON, "[" + repeat(trace+",", MaxImportTraces) + trace + "]", -1},
		{"csv over the limit", FormatCSV, "input,output\n" + repeat("q,r\n", MaxImportTraces+1), -1},
	} {
		traces, bad, err := ParseTraces(strings.NewReader(tt.file), tt.format)
		switch {
		case tt.traces < 0 && (hone.ErrorCode(err) != hone.ETOOLARGE || traces != nil || bad != nil):
			t.Errorf("%s: %d traces, %d bad, err %v; want a too_large error", tt.name, len(traces), len(bad), err)
		case tt.traces >= 0 && (err != nil || len(traces) != tt.traces || len(bad) != 0):
			t.Errorf("%s: %d traces, %d bad, err %v; want %d traces", tt.name, len(traces), len(bad), err, tt.traces)
		}
	}
}

// failingReader gives its text, then fails.
type failingReader struct {
	text string
	err  error
}

func (r *failingReader) Read(b []byte) (int, error) {
	if r.text == "" {
		return 0, r.err
	}
	n := copy(b, r.text)
	r.text = r.text[n:]
	return n, nil
}

func TestParseTracesReadError(t *testing.T) {
	boom := errors.New("connection reset")
	for _, tt := range []struct{ format, text string }{
		{FormatJSON, ""},
		{FormatJSON, "[{\"input\":\"q\",\"output\":\"r\"},\n"},
		{FormatJSONL, "{\"input\":\"q\",\"output\":\"r\"}\n"},
		{FormatJSONL, "{\"input\":\"q\",\"out"},
		{FormatCSV, "input,output\nq,r\n"},
		{FormatCSV, "input,output\nq,\"r"},
	} {
		traces, bad, err := ParseTraces(&failingReader{tt.text, boom}, tt.format)
		if !errors.Is(err, boom) || traces != nil || bad != nil {
			t.Errorf("%s %q: %d traces, %v, err %v; want the read error", tt.format, tt.text, len(traces), bad, err)
		}
	}
}

func TestFormatOf(t *testing.T) {
	for _, tt := range []struct{ name, contentType, want string }{
		{"traces.json", "", FormatJSON},
		{"traces.JSONL", "", FormatJSONL},
		{"export.ndjson", "application/octet-stream", FormatJSONL},
		{"sheet.csv", "application/vnd.ms-excel", FormatCSV},
		{"sheet.csv", "application/json", FormatCSV},
		{`C:\Users\meg\traces.Csv`, "", FormatCSV},
		{"traces.json.gz", "", ""},
		{"traces.json.gz", "application/json", FormatJSON},
		{"upload", "application/json; charset=utf-8", FormatJSON},
		{"", "Application/JSON", FormatJSON},
		{"", "application/x-ndjson", FormatJSONL},
		{"", "application/jsonl", FormatJSONL},
		{"data.txt", "text/csv; charset=utf-8; header=present", FormatCSV},
		{"data.txt", "text/csv;", FormatCSV},
		{"data.txt", "text/plain", ""},
		{"json", "", ""},
		{"", "", ""},
	} {
		if got := FormatOf(tt.name, tt.contentType); got != tt.want {
			t.Errorf("FormatOf(%q, %q) = %q, want %q", tt.name, tt.contentType, got, tt.want)
		}
	}
}

func FuzzParseTraces(f *testing.F) {
	for _, tt := range importCases {
		f.Add([]byte(tt.file))
	}
	f.Add([]byte("input,output\n\"{\"\"a\"\":\"\"\\u0000\"\"}\",\"[\"\"\\udc00\"\"]\"\n"))
	f.Add([]byte("[{\"input\":{\"a\":\"\\ud83d\\ude00\"},\"output\":\"\\t\",\"id\":\"x\"}]"))
	formats := []string{FormatJSON, FormatJSONL, FormatCSV}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := 1 + bytes.Count(data, []byte("\n"))
		for _, format := range formats {
			traces, bad, err := ParseTraces(bytes.NewReader(data), format)
			if err != nil {
				if traces != nil || bad != nil {
					t.Fatalf("%s: %v with %d traces and %d bad", format, err, len(traces), len(bad))
				}
				if !utf8.ValidString(hone.ErrorMessage(err)) {
					t.Fatalf("%s: error message not UTF-8: %q", format, hone.ErrorMessage(err))
				}
				continue
			}
			var traceLines, badLines []int
			for _, tr := range traces {
				traceLines = append(traceLines, tr.Line)
				for name, v := range map[string]json.RawMessage{"input": tr.Input, "output": tr.Output} {
					var x any
					if err := json.Unmarshal(v, &x); err != nil || x == nil {
						t.Fatalf("%s: line %d: %s %q is not a JSON value other than null", format, tr.Line, name, v)
					}
					if s, ok := x.(string); ok && strings.TrimSpace(s) == "" {
						t.Fatalf("%s: line %d: %s is blank", format, tr.Line, name)
					}
				}
				for name, v := range map[string]json.RawMessage{"context": tr.Context, "metadata": tr.Metadata} {
					if v != nil && (!json.Valid(v) || string(v) == "null") {
						t.Fatalf("%s: line %d: %s %q", format, tr.Line, name, v)
					}
				}
				if tr.Metadata != nil && tr.Metadata[0] != '{' {
					t.Fatalf("%s: line %d: metadata %q is not an object", format, tr.Line, tr.Metadata)
				}
				for _, s := range []string{tr.ID, string(tr.Input), string(tr.Output), string(tr.Context), string(tr.Metadata)} {
					if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
						t.Fatalf("%s: line %d: %q is not clean UTF-8", format, tr.Line, s)
					}
				}
			}
			for _, b := range bad {
				badLines = append(badLines, b.Line)
				if b.Message == "" || !utf8.ValidString(b.Message) || !utf8.ValidString(b.Field) {
					t.Fatalf("%s: line %d: field %q, message %q", format, b.Line, b.Field, b.Message)
				}
			}
			for _, ls := range [][]int{traceLines, badLines} {
				for i, l := range ls {
					if l < 1 || l > lines || i > 0 && l < ls[i-1] {
						t.Fatalf("%s: lines %v of a file of %d lines", format, ls, lines)
					}
				}
			}
			if format != FormatJSON {
				all := slices.Concat(traceLines, badLines)
				slices.Sort(all)
				if len(slices.Compact(all)) != len(traces)+len(bad) {
					t.Fatalf("%s: two traces start on one line: %v and %v", format, traceLines, badLines)
				}
			}
		}
	})
}

// TestParseTracesJSONLLineBound reads a JSONL file whose second line is
// over the line bound: it is one invalid trace at its own line, skipped
// whole (its end, a trace of its own, is not read as another line), and
// the lines after it keep their numbers.
func TestParseTracesJSONLLineBound(t *testing.T) {
	ghost := `{"id":"ghost","input":"q","output":"r"}`
	for _, tt := range []struct {
		name string
		long string
	}{
		{"padding before a trace", strings.Repeat(" ", MaxImportLineBytes) + ghost},
		{"a trace too long", `{"id":"big","input":"` + strings.Repeat("x", MaxImportLineBytes) + `","output":"r"}`},
		{"one byte over", `{"id":"big","input":"` + strings.Repeat("x", MaxImportLineBytes-len(`{"id":"big","input":"","output":"r"}`)+1) + `","output":"r"}`},
	} {
		file := `{"id":"first","input":"q","output":"r"}` + "\n" + tt.long + "\r\n" + `{"id":"after","input":"q","output":"r"}` + "\n"
		traces, bad, err := ParseTraces(strings.NewReader(file), FormatJSONL)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var got []string
		for _, tr := range traces {
			got = append(got, fmt.Sprintf("%d %s", tr.Line, tr.ID))
		}
		if !slices.Equal(got, []string{"1 first", "3 after"}) {
			t.Errorf("%s: traces %q, want lines 1 and 3", tt.name, got)
		}
		if len(bad) != 1 || bad[0].Line != 2 || !strings.Contains(bad[0].Message, fmt.Sprintf("longer than %d bytes", MaxImportLineBytes)) {
			t.Errorf("%s: bad %+v, want line 2 over the bound of %d bytes", tt.name, bad, MaxImportLineBytes)
		}
	}
	// A line at the bound is read.
	at := `{"id":"full","input":"` + strings.Repeat("x", MaxImportLineBytes-len(`{"id":"full","input":"","output":"r"}`)) + `","output":"r"}`
	traces, bad, err := ParseTraces(strings.NewReader(at+"\n"), FormatJSONL)
	if err != nil || len(traces) != 1 || len(bad) != 0 || len(at) != MaxImportLineBytes {
		t.Errorf("a line of %d bytes: %d traces, %+v, %v", len(at), len(traces), bad, err)
	}
}
