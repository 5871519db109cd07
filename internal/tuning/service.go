package tuning

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
)

// Replies the spec fixes word for word, with the application left unnamed.
const (
	NoResponseText = "⚠️ No recent response to attach feedback to. Ask me a question first, then use !improve."
	EmptyPrintText = "⚠️ No conversation turns in this session yet. Ask me some questions first, then use !print to export."
)

// DefaultMessageLimit is the largest reply, in bytes, a transport accepts by default.
const DefaultMessageLimit = 25 * 1024

// Links makes the download links of exports too large for a chat message.
type Links interface {
	// ExportURL is where the session's export in format ("csv" or "json")
	// can be downloaded by whoever has the link.
	ExportURL(ctx context.Context, sessionID, format string) (string, error)
}

// Options configure a Service.
type Options struct {
	Logger *slog.Logger
	Now    func() time.Time
	// MessageLimit is the largest reply in bytes; longer exports become a link.
	MessageLimit int
	// Links makes download links; nil means plain links under PublicURL.
	Links Links
	// PublicURL is where hone's web server is reached, for plain links.
	PublicURL string
	// AppName names the application under test in exports.
	AppName string
}

// Service is the tuning capability: notes, session commands and exports.
type Service struct {
	sessions capture.Store
	store    Store
	opts     Options
	log      *slog.Logger
	// judgments, when set, are read into the session exports.
	judgments Judgments
}

// NewService returns the tuning capability over the sessions of capture and
// the notes of store.
func NewService(sessions capture.Store, store Store, opts Options) *Service {
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
	if opts.Links == nil {
		opts.Links = plainLinks{opts.PublicURL}
	}
	return &Service{sessions: sessions, store: store, opts: opts, log: opts.Logger}
}

// Store returns the store of notes.
func (s *Service) Store() Store { return s.store }

// Now returns the service's current time.
func (s *Service) Now() time.Time { return s.opts.Now() }

// AppName returns the configured name of the application under test.
func (s *Service) AppName() string { return s.opts.AppName }

// plainLinks are unsigned links under a public URL.
type plainLinks struct{ base string }

func (l plainLinks) ExportURL(_ context.Context, sessionID, format string) (string, error) {
	return l.base + ExportPath(sessionID, format), nil
}

// ExportPath is the web path of a session's export in format.
func ExportPath(sessionID, format string) string {
	return "/sessions/" + sessionID + "/export." + format
}

// currentSession returns the conversation's session, or nil when it has none.
func (s *Service) currentSession(ctx context.Context, conversationID string) (*capture.Session, error) {
	sess, err := s.sessions.CurrentSession(ctx, conversationID)
	if hone.ErrorCode(err) == hone.ENOTFOUND {
		return nil, nil
	}
	return sess, err
}
