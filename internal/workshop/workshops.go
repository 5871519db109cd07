package workshop

import (
	"context"
	"strings"

	"github.com/honehq/hone"
)

// idLength is the length of the ids the workshop capability makes.
const idLength = 12

// Created is a new workshop with its facilitator's access.
type Created struct {
	*Workshop
	Facilitator Access `json:"facilitator"`
}

// Create makes a workshop in the intake phase, with its first facilitator.
// Anyone who may use the API may create one.
func (s *Service) Create(ctx context.Context, in Create) (*Created, error) {
	in.clean()
	if err := in.validate(); err != nil {
		return nil, err
	}
	now := s.opts.Now().UTC()
	w := &Workshop{ID: hone.NewID(idLength), Name: in.Name, Description: in.Description, InputJSONPath: in.InputJSONPath,
		OutputJSONPath: in.OutputJSONPath, Phase: PhaseIntake, TraceLimit: DefaultTraceLimit, Model: in.Model,
		TokenBudget: DefaultTokenBudget, CreatedAt: now, UpdatedAt: now}
	token, hash := newToken()
	m := &Member{ID: hone.NewID(idLength), WorkshopID: w.ID, Name: in.Facilitator.Name, Email: in.Facilitator.Email,
		Role: RoleFacilitator, CreatedAt: now}
	if id, ok := hone.IdentityFrom(ctx); ok && id.Kind == hone.IdentityMember {
		return nil, hone.Errorf(hone.EFORBIDDEN, "a workshop member's token cannot create workshops")
	}
	if err := s.store.CreateWorkshop(ctx, w, m, hash); err != nil {
		return nil, err
	}
	return &Created{Workshop: w, Facilitator: s.access(ctx, m, token)}, nil
}

func (s *Service) access(ctx context.Context, m *Member, token string) Access {
	return Access{Member: *m, Token: token, JoinURL: s.opts.JoinURL(ctx, JoinPath(m.WorkshopID, token))}
}

// Get returns a workshop to any of its members, and to an admin.
func (s *Service) Get(ctx context.Context, id string) (*Workshop, error) {
	w, err := s.store.Workshop(ctx, id)
	if err != nil {
		return nil, err
	}
	if _, _, err := s.actor(ctx, w, ""); err != nil {
		return nil, err
	}
	return w, nil
}

// List returns the workshops the caller may see, newest first: all for an
// admin, their own for a member.
func (s *Service) List(ctx context.Context) ([]*Workshop, error) {
	if id, ok := hone.IdentityFrom(ctx); ok && id.Kind == hone.IdentityMember {
		return s.store.ListWorkshops(ctx, []string{id.WorkshopID})
	}
	return s.store.ListWorkshops(ctx, nil)
}

// Update changes a workshop's settings; facilitators only.
func (s *Service) Update(ctx context.Context, id, userID string, in Settings) (*Workshop, error) {
	w, _, _, err := s.facilitator(ctx, id, userID)
	if err != nil {
		return nil, err
	}
	if err := in.apply(w); err != nil {
		return nil, err
	}
	w.UpdatedAt = s.opts.Now().UTC()
	if err := s.store.UpdateWorkshop(ctx, w); err != nil {
		return nil, err
	}
	return w, nil
}

// AddMember adds a participant or facilitator; facilitators only. The
// answer carries their token, shown this once.
func (s *Service) AddMember(ctx context.Context, workshopID, userID string, p Person) (*Access, error) {
	if _, _, _, err := s.facilitator(ctx, workshopID, userID); err != nil {
		return nil, err
	}
	if err := p.validate(""); err != nil {
		return nil, err
	}
	token, hash := newToken()
	m := &Member{ID: hone.NewID(idLength), WorkshopID: workshopID, Name: p.Name, Email: p.Email, Role: p.Role,
		CreatedAt: s.opts.Now().UTC()}
	if err := s.store.AddMember(ctx, m, hash); err != nil {
		return nil, err
	}
	a := s.access(ctx, m, token)
	return &a, nil
}

// Members lists a workshop's members; facilitators only.
func (s *Service) Members(ctx context.Context, workshopID, userID string) ([]*Member, error) {
	_, _, ms, err := s.facilitator(ctx, workshopID, userID)
	if err != nil {
		return nil, err
	}
	return ms.list, nil
}

// NewToken gives a member a new access token, revoking the old one;
// facilitators only.
func (s *Service) NewToken(ctx context.Context, workshopID, userID, memberID string) (*Access, error) {
	_, _, ms, err := s.facilitator(ctx, workshopID, userID)
	if err != nil {
		return nil, err
	}
	m := ms.byID[memberID]
	if m == nil {
		return nil, hone.Errorf(hone.ENOTFOUND, "workshop %s has no member %q", workshopID, memberID)
	}
	token, hash := newToken()
	if err := s.store.SetMemberToken(ctx, workshopID, memberID, hash); err != nil {
		return nil, err
	}
	a := s.access(ctx, m, token)
	return &a, nil
}

// SetPhase moves a workshop forwards to phase; facilitators only. Leaving
// discovery for a later phase needs a draft rubric item or some feedback.
func (s *Service) SetPhase(ctx context.Context, workshopID, userID, phase string) (*Workshop, error) {
	w, _, _, err := s.facilitator(ctx, workshopID, userID)
	if err != nil {
		return nil, err
	}
	phase = strings.ToLower(strings.TrimSpace(phase))
	to, from := phaseIndex(phase), phaseIndex(w.Phase)
	switch {
	case to < 0:
		return nil, hone.FieldError("phase", "phase must be one of %s, not %q", strings.Join(Phases, ", "), phase)
	case to == from:
		return w, nil
	case to < from:
		return nil, phaseConflict("the workshop is in %s and only moves forwards, not back to %s", w.Phase, phase)
	}
	if from <= phaseIndex(PhaseDiscovery) && to > phaseIndex(PhaseDiscovery) {
		ok, reason, err := s.gate(ctx, workshopID)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, phaseConflict("%s", reason)
		}
	}
	if err := s.store.SetPhase(ctx, workshopID, w.Phase, phase); err != nil {
		return nil, err
	}
	w.Phase = phase
	return w, nil
}

// gate is the spec's gate out of discovery: some discovery feedback or a
// draft rubric item. reason says why the workshop may not leave yet.
func (s *Service) gate(ctx context.Context, workshopID string) (ok bool, reason string, err error) {
	items, err := s.store.DraftItems(ctx, workshopID)
	if err != nil {
		return false, "", err
	}
	if len(items) > 0 {
		return true, "", nil
	}
	n, err := s.store.CountFeedback(ctx, workshopID)
	if err != nil || n > 0 {
		return err == nil, "", err
	}
	return false, "the workshop can leave discovery once it has discovery feedback or a draft rubric item; it has neither", nil
}

// CanLeaveDiscovery reports whether a facilitator may move the workshop on
// from discovery, and if not, why; facilitators only.
func (s *Service) CanLeaveDiscovery(ctx context.Context, workshopID string) (ok bool, reason string, err error) {
	if _, _, _, err := s.facilitator(ctx, workshopID, ""); err != nil {
		return false, "", err
	}
	return s.gate(ctx, workshopID)
}
