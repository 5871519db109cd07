package tuning

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/honehq/hone"
)

// Message is one chat message from a tester, as any transport delivers it.
type Message struct {
	Tester
	Text string
}

// Reply is the engine's answer to a message. Command is false for a message
// that is not a command: the transport passes it on to the application. Ack
// asks the transport to acknowledge silently (a reaction) instead of or beside
// showing Text.
type Reply struct {
	Command   bool   `json:"command"`
	Text      string `json:"reply"`
	Ack       bool   `json:"ack"`
	SessionID string `json:"session_id"`
	// Failed is set when the command could not be carried out because of a
	// storage failure; Text then says so.
	Failed bool `json:"failed,omitempty"`
}

// Replies the spec fixes word for word, with the application left unnamed.
const (
	FailedSaveText = "⚠️ Failed to save feedback. Please try again or contact support."
	FailedReadText = "⚠️ Failed to read the session. Please try again or contact support."
	NoResponseText = "⚠️ No recent response to attach feedback to. Ask me a question first, then use !improve."
	EmptyPrintText = "⚠️ No conversation turns in this session yet. Ask me some questions first, then use !print to export."
)

// DefaultMessageLimit is the largest reply, in bytes, a transport accepts by default.
const DefaultMessageLimit = 25 * 1024

// Command is a chat command such as !improve.
type Command struct {
	Name    string
	Aliases []string
	// Args describes the arguments for the help text, e.g. "<note>".
	Args    string
	Summary string
	// Writes is set for commands that save something: their storage failures
	// get FailedSaveText, the others FailedReadText.
	Writes bool
	Run    func(ctx context.Context, m Message, args string) (Reply, error)
}

// Options configure an Engine.
type Options struct {
	Logger *slog.Logger
	Now    func() time.Time
	// MessageLimit is the largest reply in bytes; longer exports become a link.
	MessageLimit int
	// PublicURL is where hone's web server is reached, for download links.
	PublicURL string
	// AppName names the application under test in exports.
	AppName string
	// Measurer, when set, scores every turn RecordTurn records.
	Measurer Measurer
}

// Engine turns chat messages into tuning actions. It is the same for every
// transport: terminal, web chat, HTTP API or a chat-platform adapter.
type Engine struct {
	store    Store
	opts     Options
	log      *slog.Logger
	commands map[string]*Command
	order    []*Command
}

// NewEngine returns an engine over store with the built-in commands.
func NewEngine(store Store, opts Options) *Engine {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MessageLimit <= 0 {
		opts.MessageLimit = DefaultMessageLimit
	}
	if opts.PublicURL == "" {
		opts.PublicURL = "http://localhost:8080"
	}
	opts.PublicURL = strings.TrimRight(opts.PublicURL, "/")
	if opts.AppName == "" {
		opts.AppName = DefaultAppName
	}
	e := &Engine{store: store, opts: opts, log: opts.Logger, commands: map[string]*Command{}}
	e.registerBuiltins()
	return e
}

// Store returns the store the engine works on.
func (e *Engine) Store() Store { return e.store }

// SetPublicURL changes where download links point; call it before serving.
func (e *Engine) SetPublicURL(u string) { e.opts.PublicURL = strings.TrimRight(u, "/") }

// Now returns the engine's current time.
func (e *Engine) Now() time.Time { return e.opts.Now() }

// AppName returns the configured name of the application under test.
func (e *Engine) AppName() string { return e.opts.AppName }

// Register adds a command; later capabilities (such as !score) add theirs here.
func (e *Engine) Register(c Command) {
	cmd := &c
	e.order = append(e.order, cmd)
	e.commands[c.Name] = cmd
	for _, a := range c.Aliases {
		e.commands[a] = cmd
	}
}

// IsCommand reports whether text is a chat command (starts with "!" and a letter).
func IsCommand(text string) bool {
	text = strings.TrimSpace(text)
	return len(text) > 1 && text[0] == '!' && isLetter(text[1])
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// Handle answers one message. The returned error is only for a message that
// is itself invalid (a missing conversation or tester id); storage failures
// become a reply that says so, with the error logged.
func (e *Engine) Handle(ctx context.Context, m Message) (Reply, error) {
	if err := m.Tester.Validate(); err != nil {
		return Reply{}, err
	}
	if len(m.Text) > MaxTextLength {
		return Reply{}, hone.FieldError("text", "text is longer than %d bytes", MaxTextLength)
	}
	if !IsCommand(m.Text) {
		r := Reply{}
		if s, err := e.store.CurrentSession(ctx, m.ConversationID); err == nil {
			r.SessionID = s.ID
		}
		return r, nil
	}
	text := strings.TrimSpace(m.Text)
	name, args, _ := strings.Cut(text[1:], " ")
	if i := strings.IndexAny(name, "\n\t"); i >= 0 {
		name, args = name[:i], name[i+1:]+" "+args
	}
	name = strings.ToLower(name)
	cmd, ok := e.commands[name]
	if !ok {
		r := e.help()
		r.Text = "Unknown command !" + name + ".\n\n" + r.Text
		return r, nil
	}
	r, err := cmd.Run(ctx, m, strings.TrimSpace(args))
	r.Command = true
	if err != nil {
		if hone.ErrorCode(err) == hone.EINVALID || hone.ErrorCode(err) == hone.ENOTFOUND {
			return Reply{Command: true, Text: "⚠️ " + hone.ErrorMessage(err), SessionID: r.SessionID}, nil
		}
		e.log.ErrorContext(ctx, "chat command failed", "command", cmd.Name,
			"conversation_id", m.ConversationID, "tester_id", m.TesterID, "err", err)
		text := FailedReadText
		if cmd.Writes {
			text = FailedSaveText
		}
		return Reply{Command: true, Text: text, Failed: true}, nil
	}
	return r, nil
}

// currentSession returns the conversation's session, or nil when it has none.
func (e *Engine) currentSession(ctx context.Context, conversationID string) (*Session, error) {
	s, err := e.store.CurrentSession(ctx, conversationID)
	if hone.ErrorCode(err) == hone.ENOTFOUND {
		return nil, nil
	}
	return s, err
}

// isNoTurn reports whether err says there was no turn to attach to.
func isNoTurn(err error) bool { return errors.Is(err, ErrNoTurn) }
