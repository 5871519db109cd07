package workshop

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/jobs"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/score"
)

// TurnSource gives the turns of hone's tuning sessions, for importing them
// as traces.
type TurnSource interface {
	// FindSession returns a session by id, or an ENOTFOUND error.
	FindSession(ctx context.Context, id string) (*capture.Session, error)
	// ListSessions returns sessions newest first.
	ListSessions(ctx context.Context, f capture.SessionFilter) ([]*capture.Session, error)
	// EachTurn calls fn with every turn of a session, in order.
	EachTurn(ctx context.Context, sessionID string, fn func(*capture.Turn) error) error
}

// Options configure a Service.
type Options struct {
	Logger *slog.Logger
	Now    func() time.Time
	// LLM answers follow-up questions, analyses and group suggestions; nil
	// when none is configured, and LLMError then says why.
	LLM      *llm.Client
	LLMError error
	// JoinURL makes the full join link of a join path ("/w/…/join/…"),
	// for the request of ctx.
	JoinURL func(ctx context.Context, path string) string
	// StaleAfter is how long a running analysis may go without a heartbeat
	// before it counts as interrupted (by a crash or a restart).
	StaleAfter time.Duration
	// Scores is the one path GOOD/BAD labels are recorded through, as
	// scores of config workshop_label; the service follows them (Follows,
	// ScoresChanged). Without it no feedback is taken.
	Scores *score.Service
}

// Service is the workshop capability, for every face.
type Service struct {
	store Store
	turns TurnSource
	opts  Options
	log   *slog.Logger

	jobs *jobs.Loop
}

// NewService returns the workshop capability over store; turns may be nil
// when importing sessions is not needed.
func NewService(store Store, turns TurnSource, opts Options) *Service {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.JoinURL == nil {
		opts.JoinURL = func(_ context.Context, path string) string { return path }
	}
	if opts.StaleAfter <= 0 {
		opts.StaleAfter = time.Minute
	}
	s := &Service{store: store, turns: turns, opts: opts, log: opts.Logger}
	s.jobs = s.jobLoop()
	return s
}

// LLMConfigured reports whether an LLM answers; when not, the error says
// what to set.
func (s *Service) LLMConfigured() (bool, error) { return llm.Ready(s.opts.LLM, s.opts.LLMError) }

// errNoLLM is the error of an action that needs an LLM when none is set up.
func (s *Service) errNoLLM() error {
	_, err := s.LLMConfigured()
	return hone.Errorf(hone.EUNAVAILABLE, "This needs an LLM: %s", hone.ErrorMessage(err))
}

// Actor is who acts on a workshop: the admin (the holder of the API
// token), a member with their own token, or, on a hone without an API
// token, anyone, as the member they name with user_id.
type Actor struct {
	// Admin is set for the holder of the API token: they may do anything.
	Admin bool
	// Local is set on a hone without an API token: the API is open, and the
	// role of the member named counts.
	Local bool
	// Member is the member acting: the caller themself, or the one named
	// with user_id. Nil when nobody is named.
	Member *Member
}

// Facilitator reports whether the actor may do what only facilitators may
// (and see what only they see).
func (a Actor) Facilitator() bool {
	return a.Admin || a.Member == nil && a.Local || a.Member != nil && a.Member.Role == RoleFacilitator
}

// By names the actor in records such as promoted_by: the member's id, or
// "admin" or "local".
func (a Actor) By() string {
	switch {
	case a.Member != nil:
		return a.Member.ID
	case a.Admin:
		return hone.IdentityAdmin
	}
	return hone.IdentityLocal
}

var (
	errForbiddenWorkshop = hone.Errorf(hone.EFORBIDDEN, "your access token is for another workshop")
	errFacilitatorOnly   = hone.Errorf(hone.EFORBIDDEN, "only a facilitator of the workshop may do this")
)

// actor resolves who acts from the request's identity and the user_id it
// names ("" for none). A member acts only as themself: a user_id of someone
// else is EFORBIDDEN. The admin acts for the member named and may still do
// anything; on a hone without an API token, the caller acts as the member
// named, whose role then counts.
func (s *Service) actor(ctx context.Context, w *Workshop, userID string) (Actor, *workshopMembers, error) {
	userID = strings.TrimSpace(userID)
	members, err := s.members(ctx, w.ID)
	if err != nil {
		return Actor{}, nil, err
	}
	id, _ := hone.IdentityFrom(ctx)
	switch id.Kind {
	case hone.IdentityMember:
		if id.WorkshopID != w.ID {
			return Actor{}, nil, errForbiddenWorkshop
		}
		m := members.byID[id.MemberID]
		if m == nil {
			return Actor{}, nil, hone.Errorf(hone.EUNAUTHORIZED, "your access token is no longer valid")
		}
		if userID != "" && userID != m.ID {
			return Actor{}, nil, hone.FieldError("user_id", "you may act only as yourself (user_id %s), not as %q", m.ID, userID)
		}
		return Actor{Member: m}, members, nil
	case hone.IdentityAdmin, hone.IdentityLocal, "":
		a := Actor{Admin: id.Kind == hone.IdentityAdmin, Local: id.Kind != hone.IdentityAdmin}
		if userID != "" {
			if a.Member = members.byID[userID]; a.Member == nil {
				return Actor{}, nil, hone.Errorf(hone.ENOTFOUND, "workshop %s has no member %q (user_id)", w.ID, userID)
			}
		}
		return a, members, nil
	}
	return Actor{}, nil, hone.Errorf(hone.EUNAUTHORIZED, "sign in to take part in a workshop")
}

// forbidSelf turns a FieldError on user_id from actor into EFORBIDDEN.
func forbidSelf(err error) error {
	if hone.ErrorField(err) == "user_id" && hone.ErrorCode(err) == hone.EINVALID {
		return &hone.Error{Code: hone.EFORBIDDEN, Field: "user_id", Message: hone.ErrorMessage(err)}
	}
	return err
}

// resolve loads the workshop and resolves the actor, a user_id that is not
// the caller's own being EFORBIDDEN.
func (s *Service) resolve(ctx context.Context, workshopID, userID string) (*Workshop, Actor, *workshopMembers, error) {
	w, err := s.store.Workshop(ctx, workshopID)
	if err != nil {
		return nil, Actor{}, nil, err
	}
	a, ms, err := s.actor(ctx, w, userID)
	if err != nil {
		return nil, Actor{}, nil, forbidSelf(err)
	}
	return w, a, ms, nil
}

// facilitator resolves the actor and requires a facilitator.
func (s *Service) facilitator(ctx context.Context, workshopID, userID string) (*Workshop, Actor, *workshopMembers, error) {
	w, a, ms, err := s.resolve(ctx, workshopID, userID)
	if err == nil && !a.Facilitator() {
		err = errFacilitatorOnly
	}
	return w, a, ms, err
}

// self resolves the actor of an action a member does for themself, which
// needs a member: an admin names one with user_id.
func (s *Service) self(ctx context.Context, workshopID, userID string) (*Workshop, Actor, *workshopMembers, error) {
	w, a, ms, err := s.resolve(ctx, workshopID, userID)
	if err != nil {
		return nil, Actor{}, nil, err
	}
	if a.Member == nil {
		return nil, Actor{}, nil, hone.FieldError("user_id", "user_id is required: the member who gives the feedback")
	}
	return w, a, ms, nil
}

// workshopMembers are a workshop's members, by id and in order.
type workshopMembers struct {
	list []*Member
	byID map[string]*Member
}

func (s *Service) members(ctx context.Context, workshopID string) (*workshopMembers, error) {
	list, err := s.store.Members(ctx, workshopID)
	if err != nil {
		return nil, err
	}
	ms := &workshopMembers{list: list, byID: make(map[string]*Member, len(list))}
	for _, m := range list {
		ms.byID[m.ID] = m
	}
	return ms, nil
}

// Authenticate returns the identity of a member's token; ok is false when
// no member has it.
func (s *Service) Authenticate(ctx context.Context, token string) (hone.Identity, bool, error) {
	if !LooksLikeToken(token) {
		return hone.Identity{}, false, nil
	}
	m, err := s.store.MemberByToken(ctx, HashToken(token))
	if hone.ErrorCode(err) == hone.ENOTFOUND {
		return hone.Identity{}, false, nil
	} else if err != nil {
		return hone.Identity{}, false, err
	}
	return hone.Identity{Kind: hone.IdentityMember, WorkshopID: m.WorkshopID, MemberID: m.ID, Role: m.Role}, true, nil
}
