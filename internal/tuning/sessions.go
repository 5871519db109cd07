package tuning

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
)

// Columns the sessions list sorts by.
const (
	SortStarted   = "started"
	SortEnded     = "ended"
	SortTester    = "tester"
	SortVersion   = "version"
	SortTurns     = "turns"
	SortNotes     = "notes"
	SortUp        = "up"
	SortDown      = "down"
	SortObjective = "objective"
	SortOverall   = "overall"
	SortID        = "id"
)

// SessionSorts lists every column the sessions list sorts by.
var SessionSorts = []string{SortStarted, SortEnded, SortTester, SortVersion, SortTurns, SortNotes, SortUp, SortDown,
	SortObjective, SortOverall, SortID}

// Bounds of a search of sessions.
const (
	MaxSearchText    = 200
	MaxSessionSearch = 10000
)

// SessionSearch selects, sorts and pages sessions for a reviewer: every
// field optional.
type SessionSearch struct {
	// Text is searched in the turns' messages and responses, ignoring the
	// case of ASCII letters.
	Text          string
	TesterID      string
	PromptVersion string
	// From and Until bound the session's start: From included, Until not.
	From  time.Time
	Until time.Time
	// HasThumbsDown keeps the sessions with a 👎; HasNotes those with an
	// improvement note.
	HasThumbsDown bool
	HasNotes      bool
	// MinScore and MaxScore bound the mean overall quality score of the
	// session's turns (0 to 1), both included; a session without one is
	// left out when either is set.
	MinScore *float64
	MaxScore *float64
	// Sort is one of SessionSorts (started by default), Desc its order.
	Sort string
	Desc bool
	// Limit is the most sessions returned (at most MaxSessionSearch),
	// after Offset.
	Offset int
	Limit  int
}

// SessionRow is a session as the sessions list shows it: with its
// ratings and mean scores.
type SessionRow struct {
	capture.Session
	// Up and Down count the current 👍 and 👎 of its turns.
	Up   int `json:"thumbs_up"`
	Down int `json:"thumbs_down"`
	// MeanObjective and MeanOverall are the means of its turns' objective
	// and overall quality scores; nil when no turn has one.
	MeanObjective *float64 `json:"mean_objective_score"`
	MeanOverall   *float64 `json:"mean_overall_score"`
}

// check normalises q and names its first wrong field.
func (q *SessionSearch) check() error {
	q.Text = strings.TrimSpace(hone.CleanText(q.Text))
	q.TesterID = strings.TrimSpace(hone.CleanText(q.TesterID))
	q.PromptVersion = strings.TrimSpace(hone.CleanText(q.PromptVersion))
	if q.Sort == "" {
		q.Sort = SortStarted
	}
	switch {
	case hone.Chars(q.Text) > MaxSearchText:
		return hone.FieldError("q", "the search is longer than %d characters", MaxSearchText)
	case !slices.Contains(SessionSorts, q.Sort):
		return hone.FieldError("sort", "sort must be one of %s, not %q", strings.Join(SessionSorts, ", "), q.Sort)
	case !q.From.IsZero() && !q.Until.IsZero() && !q.Until.After(q.From):
		return hone.FieldError("to", "the end of the date range comes before its start")
	case q.MinScore != nil && (*q.MinScore < 0 || *q.MinScore > 1):
		return hone.FieldError("min_score", "the lowest score must be from 0 to 1, not %g", *q.MinScore)
	case q.MaxScore != nil && (*q.MaxScore < 0 || *q.MaxScore > 1):
		return hone.FieldError("max_score", "the highest score must be from 0 to 1, not %g", *q.MaxScore)
	case q.MinScore != nil && q.MaxScore != nil && *q.MaxScore < *q.MinScore:
		return hone.FieldError("max_score", "the highest score is below the lowest")
	case q.Offset < 0:
		return hone.FieldError("page", "the page must be 1 or more")
	}
	if q.Limit <= 0 || q.Limit > MaxSessionSearch {
		q.Limit = MaxSessionSearch
	}
	return nil
}

// SearchSessions returns the sessions q selects, in its order.
func (s *Service) SearchSessions(ctx context.Context, q SessionSearch) ([]*SessionRow, error) {
	if err := q.check(); err != nil {
		return nil, err
	}
	return s.store.SearchSessions(ctx, q)
}
