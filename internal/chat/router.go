package chat

import (
	"context"
	"log/slog"
	"strings"

	"github.com/honehq/hone"
)

// Command is a chat command such as !improve.
type Command struct {
	// Group names the capability the command belongs to, for the help text.
	Group   string
	Name    string
	Aliases []string
	// Triggers are whole messages that run the command too, such as "👍".
	Triggers []string
	// Args describes the arguments for the help text, e.g. "<note>".
	Args    string
	Summary string
	// Writes is set for commands that save something: their storage failures
	// get FailedSaveText, the others FailedReadText.
	Writes bool
	Run    func(ctx context.Context, m Message, args string) (Reply, error)
}

// Interceptor sees every valid message before commands run and before a
// message is passed on to the application, for a conversation that awaits a
// reply. It returns handled true when the reply is its own. When it fails,
// the failure is logged and the message goes on as if it were not there, so
// that no message is lost to it.
type Interceptor interface {
	Intercept(ctx context.Context, m Message, isCommand bool) (r Reply, handled bool, err error)
}

// InterceptorFunc is an Interceptor made of a function.
type InterceptorFunc func(ctx context.Context, m Message, isCommand bool) (Reply, bool, error)

// Intercept calls f.
func (f InterceptorFunc) Intercept(ctx context.Context, m Message, isCommand bool) (Reply, bool, error) {
	return f(ctx, m, isCommand)
}

// Router answers chat messages with the registered commands.
type Router struct {
	log          *slog.Logger
	commands     map[string]*Command
	triggers     map[string]*Command
	order        []*Command
	interceptors []Interceptor
	// session names the conversation's current session in replies to
	// messages hone does not handle.
	session func(ctx context.Context, conversationID string) (string, error)
}

// NewRouter returns a router with only !help. session, when not nil, gives
// the id of a conversation's current session ("" for none), which replies
// to messages passed on to the application carry.
func NewRouter(log *slog.Logger, session func(ctx context.Context, conversationID string) (string, error)) *Router {
	if log == nil {
		log = slog.Default()
	}
	r := &Router{log: log, commands: map[string]*Command{}, triggers: map[string]*Command{}, session: session}
	r.Register(Command{Name: "help", Summary: "list the commands", Run: func(context.Context, Message, string) (Reply, error) {
		return r.help(), nil
	}})
	return r
}

// Register adds a command. A later command of the same name replaces the
// earlier one.
func (r *Router) Register(c Command) {
	cmd := &c
	if old, ok := r.commands[c.Name]; ok {
		for i, o := range r.order {
			if o == old {
				r.order = append(r.order[:i], r.order[i+1:]...)
				break
			}
		}
	}
	r.order = append(r.order, cmd)
	r.commands[c.Name] = cmd
	for _, a := range c.Aliases {
		r.commands[a] = cmd
	}
	for _, t := range c.Triggers {
		r.triggers[t] = cmd
	}
}

// Commands are the registered commands in the order of the help text,
// !help last, for a face that lists them (Telegram's setMyCommands).
func (r *Router) Commands() []Command {
	out := make([]Command, 0, len(r.order))
	for _, c := range r.order {
		if c.Name != "help" {
			out = append(out, *c)
		}
	}
	return append(out, *r.commands["help"])
}

// Intercept adds an interceptor; interceptors see messages in the order
// they were added.
func (r *Router) Intercept(i Interceptor) { r.interceptors = append(r.interceptors, i) }

// IsCommand reports whether text is a chat command: "!" and a letter, or a
// registered trigger.
func (r *Router) IsCommand(text string) bool {
	text = strings.TrimSpace(text)
	if _, ok := r.triggers[text]; ok {
		return true
	}
	return IsBang(text)
}

// IsBang reports whether text starts like a command, with "!" and a letter.
func IsBang(text string) bool {
	text = strings.TrimSpace(text)
	return len(text) > 1 && text[0] == '!' && isLetter(text[1])
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// Handle answers one message. The returned error is only for a message that
// is itself invalid (a missing conversation or tester id, a text too long);
// storage failures become a Failed reply that says so, with the error logged.
func (r *Router) Handle(ctx context.Context, m Message) (Reply, error) {
	m.Tester = m.Tester.Clean()
	m.Text = hone.CleanText(m.Text)
	if err := m.Tester.Validate(); err != nil {
		return Reply{}, err
	}
	if hone.Chars(m.Text) > MaxTextLength {
		return Reply{}, hone.FieldError("text", "text is longer than %d characters", MaxTextLength)
	}
	isCommand := r.IsCommand(m.Text)
	for _, in := range r.interceptors {
		reply, handled, err := in.Intercept(ctx, m, isCommand)
		if err != nil {
			r.log.ErrorContext(ctx, "chat interceptor failed; the message goes on", "conversation_id", m.ConversationID,
				"tester_id", m.TesterID, "err", err)
			continue
		}
		if handled {
			reply.Command = true
			return reply, nil
		}
	}
	if !isCommand {
		return r.passOn(ctx, m), nil
	}
	text := strings.TrimSpace(m.Text)
	cmd, args := r.triggers[text], ""
	if cmd == nil {
		var name string
		name, args, _ = strings.Cut(text[1:], " ")
		if i := strings.IndexAny(name, "\n\t"); i >= 0 {
			name, args = name[:i], name[i+1:]+" "+args
		}
		name = strings.ToLower(name)
		if cmd = r.commands[name]; cmd == nil {
			reply := r.help()
			reply.Text = "Unknown command !" + name + ".\n\n" + reply.Text
			return reply, nil
		}
	}
	reply, err := cmd.Run(ctx, m, strings.TrimSpace(args))
	reply.Command = true
	if err != nil {
		switch hone.ErrorCode(err) {
		case hone.EINVALID, hone.ENOTFOUND, hone.ECONFLICT, hone.EFORBIDDEN:
			return Reply{Command: true, Text: "⚠️ " + hone.ErrorMessage(err), SessionID: reply.SessionID}, nil
		}
		return r.failed(ctx, m, cmd.Name, cmd.Writes, err), nil
	}
	return reply, nil
}

// passOn is the reply to a message for the application, naming the
// conversation's current session when it has one.
func (r *Router) passOn(ctx context.Context, m Message) Reply {
	if r.session == nil {
		return Reply{}
	}
	id, err := r.session(ctx, m.ConversationID)
	if err != nil && hone.ErrorCode(err) != hone.ENOTFOUND {
		r.log.WarnContext(ctx, "find the session of a message", "conversation_id", m.ConversationID, "err", err)
	}
	return Reply{SessionID: id}
}

func (r *Router) failed(ctx context.Context, m Message, command string, writes bool, err error) Reply {
	r.log.ErrorContext(ctx, "chat command failed", "command", command,
		"conversation_id", m.ConversationID, "tester_id", m.TesterID, "err", err)
	text := FailedReadText
	if writes {
		text = FailedSaveText
	}
	return Reply{Command: true, Text: text, Failed: true, err: err}
}

// Usage is the usage line of the named command.
func (r *Router) Usage(name string) string {
	c := r.commands[name]
	if c == nil {
		return ""
	}
	return "Usage: `!" + strings.TrimSpace(c.Name+" "+c.Args) + "`: " + c.Summary + "."
}

// help lists the commands by group, in the order they were registered,
// !help last.
func (r *Router) help() Reply {
	var b strings.Builder
	var groups []string
	byGroup := map[string][]*Command{}
	for _, c := range r.order {
		if c.Name == "help" {
			continue
		}
		if _, ok := byGroup[c.Group]; !ok {
			groups = append(groups, c.Group)
		}
		byGroup[c.Group] = append(byGroup[c.Group], c)
	}
	for _, g := range groups {
		title := g
		if title == "" {
			title = "Other"
		}
		b.WriteString("**" + title + " commands**\n")
		for _, c := range byGroup[g] {
			r.writeHelp(&b, c)
		}
	}
	r.writeHelp(&b, r.commands["help"])
	return Reply{Command: true, Text: strings.TrimRight(b.String(), "\n")}
}

func (r *Router) writeHelp(b *strings.Builder, c *Command) {
	b.WriteString("- `!" + c.Name)
	if c.Args != "" {
		b.WriteString(" " + c.Args)
	}
	b.WriteString("`")
	for _, a := range c.Aliases {
		b.WriteString(" (or `!" + a + "`)")
	}
	for _, t := range c.Triggers {
		b.WriteString(" (or " + t + ")")
	}
	b.WriteString(": " + c.Summary + "\n")
}
