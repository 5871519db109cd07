package tuning

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
)

// Register adds the tuning commands to r.
func (s *Service) Register(r *chat.Router) {
	r.Register(chat.Command{Group: "Tuning", Name: "improve", Args: "[<category>:] <note>", Writes: true,
		Summary: "attach a note to the latest response (categories: " + strings.Join(Categories, ", ") + ")",
		Run: func(ctx context.Context, m chat.Message, args string) (chat.Reply, error) {
			return s.improve(ctx, m, args, r.Usage("improve"))
		}})
	r.Register(chat.Command{Group: "Tuning", Name: "print", Summary: "export this session as CSV", Run: s.print})
	r.Register(chat.Command{Group: "Tuning", Name: "export-json", Summary: "export this session as JSON", Run: s.exportJSON})
	r.Register(chat.Command{Group: "Tuning", Name: "reset", Aliases: []string{"restart"}, Writes: true,
		Summary: "end this session and start a new one", Run: s.reset})
	r.Register(chat.Command{Group: "Tuning", Name: "session", Aliases: []string{"session-summary"},
		Summary: "show this session's turns, improvements and duration", Run: s.session})
	r.Register(chat.Command{Group: "Tuning", Name: "sessions", Aliases: []string{"list-sessions"},
		Summary: "list your recent sessions", Run: s.listSessions})
	r.Register(chat.Command{Group: "Tuning", Name: "resume", Args: "<session-id>", Writes: true,
		Summary: "continue one of your earlier sessions",
		Run: func(ctx context.Context, m chat.Message, args string) (chat.Reply, error) {
			return s.resume(ctx, m, args, r.Usage("resume"))
		}})
}

func (s *Service) improve(ctx context.Context, m chat.Message, args, usage string) (chat.Reply, error) {
	category, note := ParseNote(args)
	if note == "" {
		return chat.Reply{Text: usage}, nil
	}
	imp, err := s.store.AddImprovement(ctx, m.ConversationID, category, note)
	if errors.Is(err, capture.ErrNoTurn) {
		return chat.Reply{Text: NoResponseText}, nil
	} else if err != nil {
		return chat.Reply{}, err
	}
	return chat.Reply{Ack: true, SessionID: imp.SessionID}, nil
}

// exportHeader is the session summary that opens !print and !export-json.
func exportHeader(s *capture.Session) string {
	return fmt.Sprintf("📊 **Session Export (Session ID: %s)**\nStarted: %s\nTurns: %d\nImprovements: %d\n",
		s.ID, formatTime(s.Start), s.TotalTurns, s.TotalImprovements)
}

func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }

const printFooter = "\n**Copy the CSV above and paste into Claude Web Code to tune the master prompt.**"

func (s *Service) print(ctx context.Context, m chat.Message, _ string) (chat.Reply, error) {
	return s.export(ctx, m, "csv", func(sess *capture.Session, buf *limitedBuffer) error {
		judged, err := s.judged(ctx, sess.ID)
		if err != nil {
			return err
		}
		return writeCSV(ctx, buf, s.store, sess, s.opts.AppName, judged)
	}, printFooter)
}

func (s *Service) exportJSON(ctx context.Context, m chat.Message, _ string) (chat.Reply, error) {
	return s.export(ctx, m, "json", func(sess *capture.Session, buf *limitedBuffer) error {
		judged, err := s.judged(ctx, sess.ID)
		if err != nil {
			return err
		}
		return writeJSON(ctx, buf, s.store, sess, s.opts.Now(), judged)
	}, "")
}

// export renders the session into a fenced block, or into a download link when
// the whole reply would not fit the transport's message limit.
func (s *Service) export(ctx context.Context, m chat.Message, format string, write func(*capture.Session, *limitedBuffer) error, footer string) (chat.Reply, error) {
	sess, err := s.currentSession(ctx, m.ConversationID)
	if err != nil {
		return chat.Reply{}, err
	}
	if sess == nil || sess.TotalTurns == 0 {
		r := chat.Reply{Text: EmptyPrintText}
		if sess != nil {
			r.SessionID = sess.ID
		}
		return r, nil
	}
	head := exportHeader(sess)
	open, close := "\n```"+format+"\n", "```\n"
	room := s.opts.MessageLimit - len(head) - len(open) - len(close) - len(footer)
	buf := &limitedBuffer{limit: max(room, 0)}
	err = write(sess, buf)
	if err == errTooLarge {
		link, err := s.opts.Links.ExportURL(ctx, sess.ID, format)
		if err != nil {
			return chat.Reply{}, err
		}
		text := head + fmt.Sprintf("\nThe %s is larger than a chat message can hold (%d KB). Download it here:\n%s",
			strings.ToUpper(format), s.opts.MessageLimit/1024, link)
		r := chat.Reply{Text: text, SessionID: sess.ID}
		if format == "csv" {
			full := &limitedBuffer{limit: maxFileBytes}
			if err := write(sess, full); err == nil {
				r.File = &chat.File{Name: exportName(sess.ID, format), Data: full.buf, Link: link}
			}
		}
		return r, nil
	} else if err != nil {
		return chat.Reply{}, err
	}
	r := chat.Reply{Text: head + open + string(buf.buf) + close + footer, SessionID: sess.ID}
	if format == "csv" {
		r.File = &chat.File{Name: exportName(sess.ID, format), Data: buf.buf}
	}
	return r, nil
}

// maxFileBytes is the largest export a reply carries as a file; a larger
// one is only its link.
const maxFileBytes = 50 << 20

// exportName is the file name of a session's export in format.
func exportName(sessionID, format string) string { return "hone-session-" + sessionID + "." + format }

func (s *Service) reset(ctx context.Context, m chat.Message, _ string) (chat.Reply, error) {
	prev, next, err := s.sessions.ResetSession(ctx, m.Tester)
	if err != nil {
		return chat.Reply{}, err
	}
	var b strings.Builder
	b.WriteString("🔄 **Session Reset Complete**\n\n")
	if prev != nil {
		fmt.Fprintf(&b, "- Previous session (%s) ended and saved\n", prev.ID)
	}
	fmt.Fprintf(&b, "- New session (%s) started\n- Conversation history cleared\n\nReady to test! Ask me a question.", next.ID)
	return chat.Reply{Text: b.String(), SessionID: next.ID}, nil
}

func (s *Service) session(ctx context.Context, m chat.Message, _ string) (chat.Reply, error) {
	sess, err := s.currentSession(ctx, m.ConversationID)
	if err != nil {
		return chat.Reply{}, err
	}
	if sess == nil {
		return chat.Reply{Text: "⚠️ No session yet. Ask me a question to start one."}, nil
	}
	version := sess.PromptVersion
	if version == "" {
		version = "(none)"
	}
	text := fmt.Sprintf("📋 **Current Session (Session ID: %s)**\nStarted: %s\nPrompt version: %s\nTurns: %d\nImprovements: %d\nDuration: %s",
		sess.ID, formatTime(sess.Start), version, sess.TotalTurns, sess.TotalImprovements, formatDuration(sess.Duration(s.opts.Now())))
	if sess.TesterID == capture.AnonymousTester {
		text += "\nTester: anonymous (its turns came without a tester_id)"
	}
	return chat.Reply{Text: text, SessionID: sess.ID}, nil
}

func formatDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return d.Truncate(time.Second).String()
}

// sessionsListed is how many sessions !sessions shows.
const sessionsListed = 10

func (s *Service) listSessions(ctx context.Context, m chat.Message, _ string) (chat.Reply, error) {
	list, err := s.sessions.ListSessions(ctx, capture.SessionFilter{TesterID: m.TesterID, Limit: sessionsListed})
	if err != nil {
		return chat.Reply{}, err
	}
	if len(list) == 0 {
		return chat.Reply{Text: "You have no sessions yet. Ask me a question to start one."}, nil
	}
	current, err := s.currentSession(ctx, m.ConversationID)
	if err != nil {
		return chat.Reply{}, err
	}
	var b strings.Builder
	b.WriteString("🗂 **Your recent sessions**\n")
	r := chat.Reply{}
	for _, sess := range list {
		mark := ""
		if current != nil && sess.ID == current.ID {
			mark, r.SessionID = " (current)", sess.ID
		}
		fmt.Fprintf(&b, "- `%s`%s: started %s, %d turns, %d improvements", sess.ID, mark, formatTime(sess.Start), sess.TotalTurns, sess.TotalImprovements)
		if sess.PromptVersion != "" {
			fmt.Fprintf(&b, ", prompt %s", sess.PromptVersion)
		}
		b.WriteString("\n")
	}
	b.WriteString("Use `!resume <session-id>` to continue one.")
	r.Text = b.String()
	return r, nil
}

func (s *Service) resume(ctx context.Context, m chat.Message, args, usage string) (chat.Reply, error) {
	id := strings.TrimSpace(args)
	if id == "" || strings.ContainsAny(id, " \n\t") {
		return chat.Reply{Text: usage}, nil
	}
	sess, err := s.sessions.ResumeSession(ctx, m.Tester, id)
	if hone.ErrorCode(err) == hone.ENOTFOUND {
		return chat.Reply{Text: fmt.Sprintf("⚠️ You have no session %q. Use !sessions to list yours.", id)}, nil
	} else if err != nil {
		return chat.Reply{}, err
	}
	return chat.Reply{Text: fmt.Sprintf("▶️ Resumed session %s (%d turns, %d improvements). Its conversation history is back.",
		sess.ID, sess.TotalTurns, sess.TotalImprovements), SessionID: sess.ID}, nil
}
