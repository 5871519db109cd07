package workshop_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/workshop"
)

// levels is a JSONPath query of n segments of eight wildcards each: every
// segment selects each value eight times over.
func levels(n int) string { return "$" + strings.Repeat("[*,*,*,*,*,*,*,*]", n) }

// nested is the 19-byte trace of eight arrays one inside the other.
const nested = `[[[[[[[["x"]]]]]]]]`

// chatTrace is a chat exchange of about 1.2 KB, nested a few levels deep.
func chatTrace() string {
	var b strings.Builder
	b.WriteString(`{"messages":[`)
	for i := 0; b.Len() < 1200; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		fmt.Fprintf(&b, `{"role":%q,"content":{"parts":[{"text":"message %d","meta":{"a":[1,[2,[3]]]}}]}}`, role, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

// TestImportRefusesAmplifyingJSONPaths imports traces with the output
// JSONPath queries of the outside report: each refuses the trace at once,
// naming the bound it went past, and imports nothing; ordinary queries on
// the same traces keep working.
func TestImportRefusesAmplifyingJSONPaths(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		chat := chatTrace()
		if len(chat) < 1150 || len(chat) > 1300 {
			t.Fatalf("the chat trace is %d bytes, want about 1.2 KB", len(chat))
		}
		trace := func(output string) string {
			b, _ := json.Marshal([]map[string]any{{"input": "q", "output": json.RawMessage(output)}})
			return string(b)
		}
		setPath := func(path string) {
			t.Helper()
			if _, err := f.svc.Update(admin, f.ws.ID, "", workshop.Settings{OutputJSONPath: &path}); err != nil {
				t.Fatalf("set output_jsonpath %s: %v", path, err)
			}
		}
		// Five levels first: the code before the bounds made 8^5 values of
		// it quickly, not 8^8.
		for _, c := range []struct{ path, output, bound string }{
			{levels(5), nested, "more than 1062 JSON values"},
			{levels(7), nested, "more than 1062 JSON values"},
			{levels(8), nested, "more than 1062 JSON values"},
			{"$..*..*..*", chat, "JSON values"},
		} {
			setPath(c.path)
			res, err := f.svc.ImportTraces(admin, f.ws.ID, "", strings.NewReader(trace(c.output)), workshop.FormatJSON, false)
			var ie *workshop.ImportError
			if !errors.As(err, &ie) || len(ie.Lines) != 1 || ie.Lines[0].Line != 1 || ie.Lines[0].Field != "output_jsonpath" {
				t.Fatalf("%s on %d bytes: %+v %v, want the trace refused naming output_jsonpath", c.path, len(c.output), res, err)
			}
			if msg := ie.Lines[0].Message; !strings.Contains(msg, c.bound) || !strings.Contains(msg, "the bound for a value of") {
				t.Errorf("%s: the message does not name the bound %q: %s", c.path, c.bound, msg)
			}
			if w, _ := f.svc.Get(admin, f.ws.ID); w.TraceCount != 0 {
				t.Fatalf("%s: a refused import added %d traces", c.path, w.TraceCount)
			}
		}

		// With skip_invalid the other traces of the file are imported.
		setPath(levels(8))
		body := `[{"id":"small","input":"q","output":` + nested + `},{"id":"text","input":"q","output":"plain"}]`
		res, err := f.svc.ImportTraces(admin, f.ws.ID, "", strings.NewReader(body), workshop.FormatJSON, true)
		if err != nil || res.Imported != 1 || res.IDs[0] != "text" || len(res.Skipped) != 1 || res.Skipped[0].Field != "output_jsonpath" {
			t.Fatalf("skip_invalid: %+v %v", res, err)
		}

		var all, answers []string
		for i := range strings.Count(chat, `"role"`) {
			all = append(all, fmt.Sprintf("message %d", i))
			if i%2 == 1 {
				answers = append(answers, all[i])
			}
		}
		for _, c := range []struct{ path, output, want string }{
			{"$.messages[-1].content.parts[0].text", chat, all[len(all)-1]},
			{"$.messages[?@.role=='assistant'].content.parts[0].text", chat, strings.Join(answers, "\n")},
			{"$..text", chat, strings.Join(all, "\n")},
			{levels(1), nested, `[[[[[[["x"]]]]]]]` + strings.Repeat("\n"+`[[[[[[["x"]]]]]]]`, 7)},
			{"$[0][0][0][0][0][0][0][0]", nested, "x"},
		} {
			setPath(c.path)
			res, err := f.svc.ImportTraces(admin, f.ws.ID, "", strings.NewReader(trace(c.output)), workshop.FormatJSON, false)
			if err != nil || res.Imported != 1 {
				t.Fatalf("%s: %+v %v", c.path, res, err)
			}
			traces, _ := f.svc.Traces(admin, f.ws.ID, "")
			if got := traces[len(traces)-1].OutputText; got != c.want {
				t.Errorf("%s gives %q, want %q", c.path, got, c.want)
			}
		}
	})
}

func TestExtract(t *testing.T) {
	flat := "[" + strings.Repeat("0,", 1999) + "0]"
	long := `{"a":"` + strings.Repeat("x", 1000) + `"}`
	for _, c := range []struct {
		name, raw, path string
		want            string
		// bound is part of the error, "" for none.
		bound string
	}{
		{"no path: a string as it is", `"héllo <b>"`, "", "héllo <b>", ""},
		{"no path: other values compact", `{"a": [1, 2.50]}`, "", `{"a":[1,2.50]}`, ""},
		{"a member", `{"messages":[{"content":"hi"},{"content":"bye"}]}`, "$.messages[-1].content", "bye", ""},
		{"values joined by lines", `{"m":[{"c":"a"},{"c":2},{"c":{"d":"<i>"}}]}`, "$.m[*].c", "a\n2\n{\"d\":\"<i>\"}", ""},
		{"object members by name", `{"b":2,"a":1,"c":3}`, "$.*", "1\n2\n3", ""},
		{"descendants in order", `{"b":{"t":"2"},"a":[{"t":"1"}],"t":"0"}`, "$..t", "0\n1\n2", ""},
		{"a filter", `[{"r":"a","c":"x"},{"r":"b","c":"y"},{"r":"a","c":"z"}]`, "$[?@.r=='a'].c", "x\nz", ""},
		{"nothing selected: the value", `{"a":1}`, "$.b", `{"a":1}`, ""},
		{"a value as large as the text bound allows", long, "$.a", strings.Repeat("x", 1000), ""},
		{"the text bound", long, `$["a","a","a"]`, "", "more than 2272 characters from this trace's output, the bound for a value of 1008 bytes (256 and 2 per byte, at most 1048576)"},
		{"the bound of values selected", flat, "$[*,*,*]", "", "selects more than 5025 JSON values of this trace's output, the bound for a value of 4001 bytes (1024 and 1 per byte)"},
		{"the bound of steps", nested, levels(8), "", "goes through more than 1062 JSON values of this trace's output, the bound for a value of 19 bytes (1024 and 2 per byte, at most 10000000)"},
		{"descendants of descendants", chatTrace(), "$..*..*..*", "", "JSON values of this trace's output"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := workshop.Extract(json.RawMessage(c.raw), "output_jsonpath", c.path)
			if c.bound == "" {
				if err != nil || got != c.want {
					t.Errorf("%s on %.60s = %q, %v; want %q", c.path, c.raw, got, err, c.want)
				}
				return
			}
			if hone.ErrorField(err) != "output_jsonpath" || !strings.Contains(hone.ErrorMessage(err), c.bound) || got != "" {
				t.Errorf("%s on %.60s = %d characters, %v; want an error naming %q", c.path, c.raw, len(got), err, c.bound)
			}
		})
	}
}

func TestJSONPathFiltersOfBoundedCost(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		for _, path := range []string{"$[?@.role=='assistant'].content", "$..[?@.a && !@.b || (@.c > 2)]", `$[?@["a("] == "b(c"]`, "$[?$.x == 1]"} {
			if _, err := f.svc.Update(admin, f.ws.ID, "", workshop.Settings{OutputJSONPath: &path}); err != nil {
				t.Errorf("%s: %v", path, err)
			}
		}
		for _, c := range []struct{ path, about string }{
			{"$[?count(@.*) > 1]", "calls a function"},
			{"$[?length(@.content) > 1]", "calls a function"},
			{"$[?match(@.role, 'a.*')]", "calls a function"},
			{"$[?!search(@.role, 'a')]", "calls a function"},
			{"$[?value(@..x) == 1]", "calls a function"},
			{"$[?@[*]]", "selects several values"},
			{"$[?(!@..x)]", "selects several values"},
			{"$[?@.a == @.b]", "compares two values"},
			{"$[?@.a < $.b]", "compares two values"},
		} {
			for _, field := range []string{"input_jsonpath", "output_jsonpath"} {
				in := workshop.Settings{}
				if field == "input_jsonpath" {
					in.InputJSONPath = &c.path
				} else {
					in.OutputJSONPath = &c.path
				}
				_, err := f.svc.Update(admin, f.ws.ID, "", in)
				if hone.ErrorField(err) != field || !strings.Contains(hone.ErrorMessage(err), c.about) {
					t.Errorf("%s as %s: %v, want an error naming %s that says it %s", c.path, field, err, field, c.about)
				}
			}
			_, err := f.svc.Create(admin, workshop.Create{Name: "w", OutputJSONPath: c.path, Facilitator: workshop.Person{Name: "F"}})
			if hone.ErrorField(err) != "output_jsonpath" {
				t.Errorf("creating a workshop with %s: %v", c.path, err)
			}
		}
	})
}

// TestFollowupPromptBoundsTraceTexts gives a follow-up question on a trace
// stored before extraction was bounded, whose output text is twice the text
// limit: the prompt holds at most the limit of it.
func TestFollowupPromptBoundsTraceTexts(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, true)
		huge := strings.Repeat("é", 2*workshop.MaxTextLength)
		if err := db.Workshops().AddTraces(admin, f.ws.ID, []*workshop.Trace{{ID: "old", WorkshopID: f.ws.ID,
			Input: json.RawMessage(`"q"`), Output: json.RawMessage(`[1]`), InputText: "q", OutputText: huge, CreatedAt: time.Now()}}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Begin(admin, f.ws.ID, "", 1, false); err != nil {
			t.Fatal(err)
		}
		a := f.as(f.alice)
		if _, err := f.svc.SubmitFeedback(a, f.ws.ID, workshop.FeedbackInput{TraceID: "old", Label: "bad", Comment: "long"}); err != nil {
			t.Fatal(err)
		}
		f.llm.SetHandler(func(llmtest.ChatRequest) llmtest.Reply { return llmtest.Text("Why?") })
		if _, err := f.svc.GenerateQuestion(a, f.ws.ID, "old", "", 1); err != nil {
			t.Fatal(err)
		}
		reqs := f.llm.Requests()
		if len(reqs) != 1 {
			t.Fatalf("%d LLM requests", len(reqs))
		}
		prompt := reqs[0].LastUserMessage()
		if n := utf8.RuneCountInString(prompt); n > workshop.MaxTextLength+len(workshop.DefaultFollowupUserPrompt)+100 || !strings.Contains(prompt, "éé…") {
			t.Errorf("the follow-up prompt holds %d characters of a trace whose text has %d", n, 2*workshop.MaxTextLength)
		}
	})
}
