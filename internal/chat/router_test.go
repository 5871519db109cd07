package chat

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
)

var meg = capture.Tester{ConversationID: "c1", TesterID: "meg"}

func newRouter(t *testing.T, logs *bytes.Buffer) *Router {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	if logs != nil {
		log = slog.New(slog.NewJSONHandler(logs, nil))
	}
	r := NewRouter(log, func(_ context.Context, conv string) (string, error) {
		if conv == "c1" {
			return "sess1", nil
		}
		return "", hone.Errorf(hone.ENOTFOUND, "no session")
	})
	r.Register(Command{Name: "echo", Aliases: []string{"say"}, Args: "<text>", Summary: "repeat the text",
		Run: func(_ context.Context, m Message, args string) (Reply, error) {
			return Reply{Text: args, SessionID: "sess1"}, nil
		}})
	r.Register(Command{Name: "good", Triggers: []string{"👍"}, Summary: "rate the latest response up", Writes: true,
		Run: func(context.Context, Message, string) (Reply, error) {
			return Reply{Ack: true, SessionID: "sess1"}, nil
		}})
	return r
}

func handle(t *testing.T, r *Router, text string) Reply {
	t.Helper()
	reply, err := r.Handle(context.Background(), Message{Tester: meg, Text: text})
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	return reply
}

func TestIsCommand(t *testing.T) {
	r := newRouter(t, nil)
	for in, want := range map[string]bool{
		"!improve x": true, "  !print": true, "!Reset": true, "!": false, "! improve": false,
		"!!": false, "hello !print": false, "!1": false, "": false, "👍": true, " 👍 ": true, "👍 great": false,
	} {
		if got := r.IsCommand(in); got != want {
			t.Errorf("IsCommand(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestHandleRoutesCommandsAndPassesTheRestOn(t *testing.T) {
	r := newRouter(t, nil)
	for _, tt := range []struct {
		text    string
		command bool
		reply   string
		ack     bool
	}{
		{"!echo hello there", true, "hello there", false},
		{"!SAY hi", true, "hi", false},
		{"!echo\tline one\nline two", true, "line one\nline two", false},
		{"👍", true, "", true},
		{"a question for the app", false, "", false},
	} {
		got := handle(t, r, tt.text)
		if got.Command != tt.command || got.Text != tt.reply || got.Ack != tt.ack || got.SessionID != "sess1" {
			t.Errorf("%q: %+v", tt.text, got)
		}
	}
	unknown := handle(t, r, "!frobnicate now")
	help := handle(t, r, "!help")
	if !unknown.Command || !strings.HasPrefix(unknown.Text, "Unknown command !frobnicate.") || !strings.HasSuffix(unknown.Text, help.Text) {
		t.Fatalf("unknown command: %q", unknown.Text)
	}
	for _, want := range []string{"`!echo <text>` (or `!say`): repeat the text", "`!good` (or 👍)", "`!help`"} {
		if !strings.Contains(help.Text, want) {
			t.Errorf("help lacks %q:\n%s", want, help.Text)
		}
	}
	if got := r.Usage("echo"); got != "Usage: `!echo <text>`: repeat the text." {
		t.Errorf("usage %q", got)
	}
	other, err := r.Handle(context.Background(), Message{Tester: capture.Tester{ConversationID: "c2", TesterID: "x"}, Text: "hi"})
	if err != nil || other.SessionID != "" || other.Command {
		t.Errorf("a conversation without a session: %+v %v", other, err)
	}
}

func TestHandleRejectsInvalidMessages(t *testing.T) {
	r := newRouter(t, nil)
	for field, m := range map[string]Message{
		"conversation_id": {Tester: capture.Tester{TesterID: "x"}, Text: "!help"},
		"tester_id":       {Tester: capture.Tester{ConversationID: "c"}, Text: "hi"},
		"tester_email":    {Tester: capture.Tester{ConversationID: "c", TesterID: "x", TesterEmail: "no at"}, Text: "hi"},
		"text":            {Tester: meg, Text: strings.Repeat("é", MaxTextLength+1)},
	} {
		if _, err := r.Handle(context.Background(), m); hone.ErrorField(err) != field {
			t.Errorf("%s: err = %v", field, err)
		}
	}
	if _, err := r.Handle(context.Background(), Message{Tester: meg, Text: strings.Repeat("é", MaxTextLength)}); err != nil {
		t.Errorf("a message of exactly the limit in characters (twice as many bytes): %v", err)
	}
}

func TestFailuresBecomeTheSpecMessage(t *testing.T) {
	var logs bytes.Buffer
	r := newRouter(t, &logs)
	down := hone.Errorf(hone.EUNAVAILABLE, "The database is unavailable; try again shortly.")
	r.Register(Command{Name: "save", Writes: true, Summary: "save", Run: func(context.Context, Message, string) (Reply, error) {
		return Reply{}, down
	}})
	r.Register(Command{Name: "read", Summary: "read", Run: func(context.Context, Message, string) (Reply, error) {
		return Reply{}, errors.New("disk I/O error")
	}})
	r.Register(Command{Name: "bad", Summary: "bad", Run: func(context.Context, Message, string) (Reply, error) {
		return Reply{}, hone.FieldError("score", "scores must be 1 to 5")
	}})
	if got := handle(t, r, "!save"); got.Text != FailedSaveText || !got.Failed || got.Code() != hone.EUNAVAILABLE {
		t.Errorf("!save: %+v code %q", got, got.Code())
	}
	if got := handle(t, r, "!read"); got.Text != FailedReadText || !got.Failed || got.Code() != hone.EINTERNAL {
		t.Errorf("!read: %+v", got)
	}
	if got := handle(t, r, "!bad"); got.Text != "⚠️ scores must be 1 to 5" || got.Failed {
		t.Errorf("!bad: %+v", got)
	}
	for _, want := range []string{`"command":"save"`, `"command":"read"`, "disk I/O error", `"conversation_id":"c1"`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, logs.String())
		}
	}
}

// awaiting is an interceptor that takes the next message of a conversation
// after !ask, as the learning loop's correction flow does.
type awaiting struct{ waiting map[string]bool }

func (a *awaiting) Intercept(_ context.Context, m Message, isCommand bool) (Reply, bool, error) {
	if !a.waiting[m.ConversationID] {
		return Reply{}, false, nil
	}
	delete(a.waiting, m.ConversationID)
	if isCommand {
		return Reply{}, false, nil
	}
	return Reply{Text: "Thanks: " + m.Text}, true, nil
}

func TestInterceptorSeesMessagesFirst(t *testing.T) {
	var logs bytes.Buffer
	r := newRouter(t, &logs)
	a := &awaiting{waiting: map[string]bool{}}
	r.Intercept(a)
	r.Register(Command{Name: "ask", Summary: "ask for a correction", Run: func(_ context.Context, m Message, _ string) (Reply, error) {
		a.waiting[m.ConversationID] = true
		return Reply{Text: "What should I have done differently?"}, nil
	}})
	handle(t, r, "!ask")
	if got := handle(t, r, "be shorter"); !got.Command || got.Text != "Thanks: be shorter" {
		t.Fatalf("the awaited reply: %+v", got)
	}
	if got := handle(t, r, "a new question"); got.Command {
		t.Fatalf("a message after the flow: %+v", got)
	}
	handle(t, r, "!ask")
	if got := handle(t, r, "!echo abandon"); got.Text != "abandon" {
		t.Fatalf("a command during the flow: %+v", got)
	}
	if got := handle(t, r, "plain"); got.Command {
		t.Fatalf("the flow was not abandoned by the command: %+v", got)
	}
	r.Intercept(InterceptorFunc(func(context.Context, Message, bool) (Reply, bool, error) {
		return Reply{}, false, errors.New("state unreadable")
	}))
	if got := handle(t, r, "still answered"); got.Command || got.SessionID != "sess1" {
		t.Fatalf("a failing interceptor swallowed the message: %+v", got)
	}
	if !strings.Contains(logs.String(), "state unreadable") {
		t.Errorf("the interceptor's failure is not logged:\n%s", logs.String())
	}
}

func TestCommandsListsEachCommandOnceHelpLast(t *testing.T) {
	r := newRouter(t, &bytes.Buffer{})
	r.Register(Command{Name: "echo", Summary: "say it again"})
	var names []string
	for _, c := range r.Commands() {
		names = append(names, c.Name+":"+c.Summary)
	}
	if got := strings.Join(names, " "); got != "good:rate the latest response up echo:say it again help:list the commands" {
		t.Fatalf("commands %s", got)
	}
}
