package tuning

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/honehq/hone"
)

func (e *Engine) registerBuiltins() {
	e.Register(Command{Name: "improve", Args: "[<category>:] <note>", Writes: true,
		Summary: "attach a note to the latest response (categories: " + strings.Join(Categories, ", ") + ")",
		Run:     e.improve})
	e.Register(Command{Name: "print", Summary: "export this session as CSV", Run: e.print})
	e.Register(Command{Name: "export-json", Summary: "export this session as JSON", Run: e.exportJSON})
	e.Register(Command{Name: "reset", Aliases: []string{"restart"}, Writes: true,
		Summary: "end this session and start a new one", Run: e.reset})
	e.Register(Command{Name: "session", Aliases: []string{"session-summary"},
		Summary: "show this session's turns, improvements and duration", Run: e.session})
	e.Register(Command{Name: "sessions", Aliases: []string{"list-sessions"},
		Summary: "list your recent sessions", Run: e.sessions})
	e.Register(Command{Name: "resume", Args: "<session-id>", Writes: true,
		Summary: "continue one of your earlier sessions", Run: e.resume})
	e.Register(Command{Name: "help", Summary: "list the commands", Run: func(context.Context, Message, string) (Reply, error) {
		return e.help(), nil
	}})
}

func (e *Engine) help() Reply {
	var b strings.Builder
	b.WriteString("**Tuning commands**\n")
	for _, c := range e.order {
		b.WriteString("- `!" + c.Name)
		if c.Args != "" {
			b.WriteString(" " + c.Args)
		}
		b.WriteString("`")
		for _, a := range c.Aliases {
			b.WriteString(" (or `!" + a + "`)")
		}
		b.WriteString(": " + c.Summary + "\n")
	}
	return Reply{Command: true, Text: strings.TrimRight(b.String(), "\n")}
}

func (e *Engine) usage(name string) string {
	c := e.commands[name]
	return fmt.Sprintf("Usage: `!%s %s`: %s.", c.Name, c.Args, c.Summary)
}

func (e *Engine) improve(ctx context.Context, m Message, args string) (Reply, error) {
	category, note := ParseNote(args)
	if note == "" {
		return Reply{Text: e.usage("improve")}, nil
	}
	imp, err := e.store.AddImprovement(ctx, m.ConversationID, category, note)
	if isNoTurn(err) {
		return Reply{Text: NoResponseText}, nil
	} else if err != nil {
		return Reply{}, err
	}
	return Reply{Ack: true, SessionID: imp.SessionID}, nil
}

// exportHeader is the session summary that opens !print and !export-json.
func exportHeader(s *Session) string {
	return fmt.Sprintf("📊 **Session Export (Session ID: %s)**\nStarted: %s\nTurns: %d\nImprovements: %d\n",
		s.ID, formatTime(s.Start), s.TotalTurns, s.TotalImprovements)
}

func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }

const printFooter = "\n**Copy the CSV above and paste into Claude Web Code to tune the master prompt.**"

func (e *Engine) print(ctx context.Context, m Message, _ string) (Reply, error) {
	return e.export(ctx, m, "csv", func(s *Session, buf *limitedBuffer) error {
		return WriteCSV(ctx, buf, e.store, s, e.opts.AppName)
	}, printFooter)
}

func (e *Engine) exportJSON(ctx context.Context, m Message, _ string) (Reply, error) {
	return e.export(ctx, m, "json", func(s *Session, buf *limitedBuffer) error {
		return WriteJSON(ctx, buf, e.store, s, e.opts.Now())
	}, "")
}

// export renders the session into a fenced block, or into a download link when
// the whole reply would not fit the transport's message limit.
func (e *Engine) export(ctx context.Context, m Message, format string, write func(*Session, *limitedBuffer) error, footer string) (Reply, error) {
	s, err := e.currentSession(ctx, m.ConversationID)
	if err != nil {
		return Reply{}, err
	}
	if s == nil || s.TotalTurns == 0 {
		r := Reply{Text: EmptyPrintText}
		if s != nil {
			r.SessionID = s.ID
		}
		return r, nil
	}
	head := exportHeader(s)
	open, close := "\n```"+format+"\n", "```\n"
	room := e.opts.MessageLimit - len(head) - len(open) - len(close) - len(footer)
	buf := &limitedBuffer{limit: max(room, 0)}
	err = write(s, buf)
	if err == errTooLarge {
		link := e.DownloadURL(s.ID, format)
		text := head + fmt.Sprintf("\nThe %s is larger than a chat message can hold (%d KB). Download it here:\n%s",
			strings.ToUpper(format), e.opts.MessageLimit/1024, link)
		return Reply{Text: text, SessionID: s.ID}, nil
	} else if err != nil {
		return Reply{}, err
	}
	return Reply{Text: head + open + string(buf.buf) + close + footer, SessionID: s.ID}, nil
}

// DownloadURL is where the web server serves a session's export in format.
func (e *Engine) DownloadURL(sessionID, format string) string {
	return e.opts.PublicURL + "/sessions/" + sessionID + "/export." + format
}

func (e *Engine) reset(ctx context.Context, m Message, _ string) (Reply, error) {
	prev, next, err := e.store.ResetSession(ctx, m.Tester)
	if err != nil {
		return Reply{}, err
	}
	var b strings.Builder
	b.WriteString("🔄 **Session Reset Complete**\n\n")
	if prev != nil {
		fmt.Fprintf(&b, "- Previous session (%s) ended and saved\n", prev.ID)
	}
	fmt.Fprintf(&b, "- New session (%s) started\n- Conversation history cleared\n\nReady to test! Ask me a question.", next.ID)
	return Reply{Text: b.String(), SessionID: next.ID}, nil
}

func (e *Engine) session(ctx context.Context, m Message, _ string) (Reply, error) {
	s, err := e.currentSession(ctx, m.ConversationID)
	if err != nil {
		return Reply{}, err
	}
	if s == nil {
		return Reply{Text: "⚠️ No session yet. Ask me a question to start one."}, nil
	}
	version := s.PromptVersion
	if version == "" {
		version = "(none)"
	}
	text := fmt.Sprintf("📋 **Current Session (Session ID: %s)**\nStarted: %s\nPrompt version: %s\nTurns: %d\nImprovements: %d\nDuration: %s",
		s.ID, formatTime(s.Start), version, s.TotalTurns, s.TotalImprovements, formatDuration(s.Duration(e.opts.Now())))
	return Reply{Text: text, SessionID: s.ID}, nil
}

func formatDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return d.Truncate(time.Second).String()
}

// sessionsListed is how many sessions !sessions shows.
const sessionsListed = 10

func (e *Engine) sessions(ctx context.Context, m Message, _ string) (Reply, error) {
	list, err := e.store.ListSessions(ctx, SessionFilter{TesterID: m.TesterID, Limit: sessionsListed})
	if err != nil {
		return Reply{}, err
	}
	if len(list) == 0 {
		return Reply{Text: "You have no sessions yet. Ask me a question to start one."}, nil
	}
	current, err := e.currentSession(ctx, m.ConversationID)
	if err != nil {
		return Reply{}, err
	}
	var b strings.Builder
	b.WriteString("🗂 **Your recent sessions**\n")
	r := Reply{}
	for _, s := range list {
		mark := ""
		if current != nil && s.ID == current.ID {
			mark, r.SessionID = " (current)", s.ID
		}
		fmt.Fprintf(&b, "- `%s`%s: started %s, %d turns, %d improvements", s.ID, mark, formatTime(s.Start), s.TotalTurns, s.TotalImprovements)
		if s.PromptVersion != "" {
			fmt.Fprintf(&b, ", prompt %s", s.PromptVersion)
		}
		b.WriteString("\n")
	}
	b.WriteString("Use `!resume <session-id>` to continue one.")
	r.Text = b.String()
	return r, nil
}

func (e *Engine) resume(ctx context.Context, m Message, args string) (Reply, error) {
	id := strings.TrimSpace(args)
	if id == "" || strings.ContainsAny(id, " \n\t") {
		return Reply{Text: e.usage("resume")}, nil
	}
	s, err := e.store.ResumeSession(ctx, m.Tester, id)
	if hone.ErrorCode(err) == hone.ENOTFOUND {
		return Reply{Text: fmt.Sprintf("⚠️ You have no session %q. Use !sessions to list yours.", id)}, nil
	} else if err != nil {
		return Reply{}, err
	}
	return Reply{Text: fmt.Sprintf("▶️ Resumed session %s (%d turns, %d improvements). Its conversation history is back.",
		s.ID, s.TotalTurns, s.TotalImprovements), SessionID: s.ID}, nil
}
