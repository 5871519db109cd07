package score

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/timebound"
)

// Query selects scores as the faces give it: each field optional.
type Query struct {
	TurnID     string
	WorkshopID string
	TraceID    string
	// Config is a config's name (every config of that name, archived ones
	// too) or id.
	Config        string
	Source        string
	Author        string
	PromptVersion string
	// Since and Until bound the creation time: an RFC 3339 time, a date
	// (UTC), or a span back from now such as 90m, 24h or 7d.
	Since string
	Until string
	// Limit is the most scores a page holds (DefaultLimit when 0, at most
	// MaxLimit), after Offset.
	Limit  int
	Offset int
}

// Page bounds of a list.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// Page is one page of scores, newest first.
type Page struct {
	Scores []*Score `json:"scores"`
	// NextOffset, when set, is the offset of the next page.
	NextOffset *int `json:"next_offset,omitempty"`
}

// Filter turns q into a Filter, or an error naming the parameter that is
// wrong. now is the time spans count back from.
func (s *Service) Filter(ctx context.Context, q Query, now time.Time) (Filter, error) {
	f := Filter{TurnID: q.TurnID, WorkshopID: q.WorkshopID, TraceID: q.TraceID, Source: q.Source, Author: q.Author,
		PromptVersion: q.PromptVersion, Limit: q.Limit, Offset: q.Offset,
		Nothing: !storable(q.TurnID, q.WorkshopID, q.TraceID, q.Author, q.PromptVersion, q.Config)}
	if q.Source != "" && !slices.Contains(Sources, q.Source) {
		return f, hone.FieldError("source", "source must be one of %s, not %q", strings.Join(Sources, ", "), q.Source)
	}
	if q.Config != "" {
		all, err := s.store.Configs(ctx, true)
		if err != nil {
			return f, err
		}
		name := strings.ToLower(q.Config)
		for _, c := range all {
			if c.Name == name || c.ID == q.Config {
				f.ConfigIDs = append(f.ConfigIDs, c.ID)
			}
		}
		if len(f.ConfigIDs) == 0 {
			return f, hone.FieldError("config", "no score config is named %q or has that id", q.Config)
		}
	}
	var err error
	if f.Since, err = timebound.Parse("since", q.Since, now); err != nil {
		return f, err
	}
	if f.Until, err = timebound.Parse("until", q.Until, now); err != nil {
		return f, err
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Until.After(f.Since) {
		return f, hone.FieldError("until", "until must be after since")
	}
	return f, nil
}

// List returns a page of the scores q selects, newest first.
func (s *Service) List(ctx context.Context, q Query, now time.Time) (*Page, error) {
	switch {
	case q.Limit == 0:
		q.Limit = DefaultLimit
	case q.Limit < 1 || q.Limit > MaxLimit:
		return nil, hone.FieldError("limit", "limit must be from 1 to %d, not %d", MaxLimit, q.Limit)
	}
	if q.Offset < 0 {
		return nil, hone.FieldError("offset", "offset must be 0 or more, not %d", q.Offset)
	}
	f, err := s.Filter(ctx, q, now)
	if err != nil {
		return nil, err
	}
	f.Limit++
	list, err := s.store.Scores(ctx, f)
	if err != nil {
		return nil, err
	}
	p := &Page{Scores: list}
	if len(list) > q.Limit {
		p.Scores = list[:q.Limit]
		next := q.Offset + q.Limit
		p.NextOffset = &next
	}
	return p, nil
}

// OfSession returns every score of the turns of a captured session, oldest
// first: what the session page and its exports show.
func (s *Service) OfSession(ctx context.Context, sessionID string) ([]*Score, error) {
	var out []*Score
	err := s.store.EachScore(ctx, Filter{SessionID: sessionID, Nothing: !storable(sessionID)}, func(sc *Score) error {
		out = append(out, sc)
		return nil
	})
	return out, err
}
