package suggestions

import "context"

// Store keeps suggestion records and their rollups. Every method is atomic.
type Store interface {
	// Add stores the records whose id is new, with the rollups deltas
	// gives for those, in one transaction, and returns how many were new.
	Add(ctx context.Context, recs []*Record, deltas func(added []*Record) []Rollup) (int, error)
	// Rollups sums the rollups of the records the filter picks (its
	// server, version and days), by kind, key and, for KindMatch, day
	// and version.
	Rollups(ctx context.Context, f Filter) ([]Rollup, error)
	// Each calls fn with the records the filter picks, oldest first, Raw
	// filled in.
	Each(ctx context.Context, f Filter, fn func(*Record) error) error
	// Forget removes a session's records (of one server, or of all when
	// server is ""), taking away the rollups deltas gives for them, and
	// returns how many it removed.
	Forget(ctx context.Context, server, session string, deltas func(removed []*Record) []Rollup) (int, error)
}
