package web_test

import (
	"strings"
	"testing"

	"github.com/honehq/hone/internal/llm/llmtest"
)

func TestChatReplyWordsTheNoteAndCarriesTheCSV(t *testing.T) {
	fake := llmtest.New(t)
	a := openChatApp(t, "", fake.Config(), writeMasterPrompt(t))
	c, _ := loadChat(t, a)
	h := map[string]string{"X-CSRF-Token": c.token}
	send := func(text string) map[string]any {
		t.Helper()
		status, out := c.post(t, `{"prompt":"MASTER_PROMPT.md","text":"`+text+`"}`, h)
		if status != 200 {
			t.Fatalf("POST %q = %d %v", text, status, out)
		}
		return out
	}
	send("hello")
	for _, tc := range []struct{ text, want string }{
		{"!improve tone: too formal", "Note saved on this answer (tone): too formal"},
		{"!improve shorter please", "Note saved on this answer: shorter please"},
		{"!IMPROVE Clarity: define PTO", "Note saved on this answer (clarity): define PTO"},
	} {
		out := send(tc.text)
		if out["ack"] != true || out["ack_text"] != tc.want || out["reply_html"] != "" && out["reply_html"] != nil {
			t.Errorf("%q answered %v, want ack with ack_text %q", tc.text, out, tc.want)
		}
	}
	out := send("!print")
	f, _ := out["file"].(map[string]any)
	data, _ := f["data"].(string)
	if f == nil || !strings.HasPrefix(f["name"].(string), "hone-session-") || !strings.HasSuffix(f["name"].(string), ".csv") ||
		!strings.Contains(data, "too formal") || !strings.Contains(data, "define PTO") {
		t.Errorf("!print's file = %v, want the session's CSV with its notes", f)
	}
	if out := send("hello again"); out["file"] != nil || out["ack_text"] != nil {
		t.Errorf("an answer of the model carries %v", out)
	}
}
