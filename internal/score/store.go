package score

import (
	"context"
	"time"
)

// Filter selects scores; empty fields match all.
type Filter struct {
	TurnID string
	// SessionID selects the scores of the turns of a captured session.
	SessionID  string
	WorkshopID string
	TraceID    string
	// ConfigIDs are the configs' ids; nil matches every config.
	ConfigIDs     []string
	Source        string
	Author        string
	PromptVersion string
	// Since and Until bound the creation time: Since included, Until not.
	Since time.Time
	Until time.Time
	// Limit is the most scores a page holds (0: no limit), after Offset.
	Limit  int
	Offset int
	// Nothing is set when a value names nothing any score can hold (a NUL,
	// bytes that are not UTF-8): no score matches.
	Nothing bool
}

// Added is what became of one score a store was asked to add.
type Added struct {
	// Score is the score as stored: the one given, or the one that had its
	// id already.
	Score *Score
	// Existed is set when a score had the id already; it is the same
	// score when its fingerprint is the same.
	Existed bool
}

// Store keeps score configs and scores. Every method is atomic, and joins
// the transaction of Atomically when its context carries one.
type Store interface {
	// Atomically runs fn in one transaction: every call of this store, and
	// of the other capabilities' stores of the same database, made with the
	// context fn is given is part of it.
	Atomically(ctx context.Context, fn func(ctx context.Context) error) error

	// AddConfig stores a new config; ECONFLICT when a config that is not
	// archived has its name.
	AddConfig(ctx context.Context, c *Config) error
	// UpdateConfig stores c when the stored config is still at version
	// from, and counts the version up; ECONFLICT when it changed
	// meanwhile, or the new name is taken.
	UpdateConfig(ctx context.Context, c *Config, from int) error
	// Config returns a config by id; ENOTFOUND when there is none.
	Config(ctx context.Context, id string) (*Config, error)
	// Configs returns every config by name, the archived ones too when
	// archived is set.
	Configs(ctx context.Context, archived bool) ([]*Config, error)
	// ConfigUsed reports whether any score has the config.
	ConfigUsed(ctx context.Context, id string) (bool, error)

	// AddScores adds scores in one transaction, in order: each one whose
	// id is new is stored with its CreatedAt set; for each one whose id is
	// taken, the stored score is returned instead.
	AddScores(ctx context.Context, scores []*Score) ([]Added, error)
	// Score returns a score by id; ENOTFOUND when there is none.
	Score(ctx context.Context, id string) (*Score, error)
	// DeleteScore removes a score and returns it; ENOTFOUND when there is
	// none.
	DeleteScore(ctx context.Context, id string) (*Score, error)
	// Scores returns the scores f selects, newest first.
	Scores(ctx context.Context, f Filter) ([]*Score, error)
	// EachScore calls fn with every score f selects, oldest first, without
	// holding them all in memory.
	EachScore(ctx context.Context, f Filter, fn func(*Score) error) error
	// Latest returns the latest score (by creation time, then id) of each
	// config of configIDs that judged the target, of author only when
	// author is not nil, in no particular order.
	Latest(ctx context.Context, t Target, configIDs []string, author *string) ([]*Score, error)
	// LatestOfTurns is Latest of every turn of turnIDs, by any author, in
	// one read: the latest scores of each turn that has any.
	LatestOfTurns(ctx context.Context, turnIDs, configIDs []string) (map[string][]*Score, error)
}

// Follower keeps figures derived from scores (a turn's composites, its
// ratings, a workshop's labels): the Service tells it of every change of the
// scores of the configs it follows, inside the transaction that makes the
// change, whatever the path (a chat command, a page, the API, an import).
// Its error undoes the change.
type Follower interface {
	// Follows reports whether the follower derives figures from scores of c.
	Follows(c *Config) bool
	// ScoresChanged brings the follower's figures up to date after ch, in
	// the transaction ctx carries: it reads what it needs through the
	// Service (Latest) and its own store with ctx.
	ScoresChanged(ctx context.Context, ch Change) error
}

// Change is what changed among the scores a follower follows.
type Change struct {
	// Added are the scores recorded, in order (a score sent again under
	// its id is not among them).
	Added []*Score
	// Deleted are the scores removed.
	Deleted []*Score
}

// Targets lists the targets of the change's scores, each once, in order.
func (ch Change) Targets() []Target {
	var out []Target
	seen := map[Target]bool{}
	for _, s := range append(append([]*Score(nil), ch.Added...), ch.Deleted...) {
		if t := s.Target(); !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// Turns is what scores need of the turns hone captured: capture's store
// answers it.
type Turns interface {
	// TurnVersions returns the prompt version of each of the turns ids
	// names that exists ("" for a turn without one).
	TurnVersions(ctx context.Context, ids []string) (map[string]string, error)
}

// Traces is what scores need of the workshops' traces: whether one exists.
type Traces interface {
	// TraceExists returns nil when the workshop has the trace, an
	// ENOTFOUND error when it has not.
	TraceExists(ctx context.Context, workshopID, traceID string) error
}
