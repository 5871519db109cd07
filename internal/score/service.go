package score

import (
	"context"
	"slices"
	"strings"

	"github.com/honehq/hone"
)

// Options configure a Service.
type Options struct {
	// Turns and Traces say whether a score's target exists; a nil one
	// refuses every target of its kind.
	Turns  Turns
	Traces Traces
	// Counter, when not nil, is told of every score recorded, once its
	// transaction is committed.
	Counter Counter
}

// Service is the score capability, for every face: configs, and the one
// path every judgment is recorded through.
type Service struct {
	store     Store
	opts      Options
	followers []Follower
	committed []func([]*Score)
}

// OnCommit registers fn to be told of the scores recorded once their
// transaction is committed (a score sent again under its id is not among
// them): to pass them on outside hone. fn must not block. Register it
// before the service is used.
func (s *Service) OnCommit(fn func([]*Score)) { s.committed = append(s.committed, fn) }

// Follow registers followers: each is told of the changes of the scores of
// the configs it follows, in the transaction that makes them. Register
// them before the service is used.
func (s *Service) Follow(f ...Follower) { s.followers = append(s.followers, f...) }

// Atomically runs fn in one transaction with the scores it records: a
// capability records a judgment and what it keeps beside it (a correction
// flow, a review's comment) together.
func (s *Service) Atomically(ctx context.Context, fn func(ctx context.Context) error) error {
	ctx, t := s.tallying(ctx)
	if err := s.store.Atomically(ctx, fn); err != nil {
		return err
	}
	t.report(s)
	return nil
}

// Latest returns the latest score of each of the configs that judged the
// target, of author only when author is not nil: what a follower derives
// its figures from.
func (s *Service) Latest(ctx context.Context, t Target, configIDs []string, author *string) ([]*Score, error) {
	if len(configIDs) == 0 {
		return nil, nil
	}
	return s.store.Latest(ctx, t, configIDs, author)
}

// LatestOfTurns is Latest of many turns by any author, in one read.
func (s *Service) LatestOfTurns(ctx context.Context, turnIDs, configIDs []string) (map[string][]*Score, error) {
	if len(configIDs) == 0 || len(turnIDs) == 0 {
		return map[string][]*Score{}, nil
	}
	return s.store.LatestOfTurns(ctx, turnIDs, configIDs)
}

// notify tells every follower the part of ch it follows; configs maps
// config ids to the configs of ch's scores.
func (s *Service) notify(ctx context.Context, ch Change, configs map[string]*Config) error {
	for _, f := range s.followers {
		var part Change
		for _, sc := range ch.Added {
			if c := configs[sc.ConfigID]; c != nil && f.Follows(c) {
				part.Added = append(part.Added, sc)
			}
		}
		for _, sc := range ch.Deleted {
			if c := configs[sc.ConfigID]; c != nil && f.Follows(c) {
				part.Deleted = append(part.Deleted, sc)
			}
		}
		if len(part.Added)+len(part.Deleted) == 0 {
			continue
		}
		if err := f.ScoresChanged(ctx, part); err != nil {
			return err
		}
	}
	return nil
}

// Replay tells every follower of every score f selects again, as if each
// had just been recorded, so that what they derive is rebuilt from the
// scores alone: after scores were moved in by a migration, or to repair.
// It works in transactions of at most replayChunk scores.
func (s *Service) Replay(ctx context.Context, f Filter) error {
	all, err := s.store.Configs(ctx, true)
	if err != nil {
		return err
	}
	configs := make(map[string]*Config, len(all))
	for _, c := range all {
		configs[c.ID] = c
	}
	var list []*Score
	if err := s.store.EachScore(ctx, f, func(sc *Score) error {
		list = append(list, sc)
		return nil
	}); err != nil {
		return err
	}
	for part := range slices.Chunk(list, replayChunk) {
		if err := s.store.Atomically(ctx, func(ctx context.Context) error {
			return s.notify(ctx, Change{Added: part}, configs)
		}); err != nil {
			return err
		}
	}
	return nil
}

// replayChunk bounds the scores Replay tells of in one transaction.
const replayChunk = 1000

// EnsureConfig returns the config named in.Name (the one that is not
// archived, else the latest archived), and adds one defined by in when no
// config has the name: for the !score dimensions a metric set names besides
// the built-in ones. A dimension whose config was archived stays archived.
func (s *Service) EnsureConfig(ctx context.Context, in ConfigInput) (*Config, error) {
	name := strings.ToLower(in.Name)
	for attempt := 0; ; attempt++ {
		all, err := s.store.Configs(ctx, true)
		if err != nil {
			return nil, err
		}
		var found *Config
		for _, c := range all {
			if c.Name == name && (found == nil || !c.Archived || found.Archived && c.UpdatedAt.After(found.UpdatedAt)) {
				found = c
			}
		}
		if found != nil {
			return found, nil
		}
		c, err := s.AddConfig(ctx, in)
		if hone.ErrorCode(err) == hone.ECONFLICT && attempt == 0 {
			continue // another server added it meanwhile
		}
		return c, err
	}
}

// NewService returns the score capability over store.
func NewService(store Store, opts Options) *Service {
	return &Service{store: store, opts: opts}
}

// Configs lists the configs by name, the archived ones too when archived
// is set.
func (s *Service) Configs(ctx context.Context, archived bool) ([]*Config, error) {
	return s.store.Configs(ctx, archived)
}

// Config returns the config ref names: the config of that name that is not
// archived (in any case), or else the config with that id.
func (s *Service) Config(ctx context.Context, ref string) (*Config, error) {
	all, err := s.store.Configs(ctx, true)
	if err != nil {
		return nil, err
	}
	if c := resolve(all, ref); c != nil {
		return c, nil
	}
	return nil, hone.Errorf(hone.ENOTFOUND, "no score config is named %q or has that id", ref)
}

// resolve finds the config ref names among all.
func resolve(all []*Config, ref string) *Config {
	name := strings.ToLower(ref)
	for _, c := range all {
		if !c.Archived && c.Name == name {
			return c
		}
	}
	for _, c := range all {
		if c.ID == ref {
			return c
		}
	}
	return nil
}

// AddConfig stores a new config.
func (s *Service) AddConfig(ctx context.Context, in ConfigInput) (*Config, error) {
	c := &Config{ID: hone.NewID(idLength), Name: in.Name, DataType: in.DataType, Min: in.Min, Max: in.Max, Step: in.Step,
		Categories: in.Categories, Description: in.Description, Version: 1}
	if err := c.validate(); err != nil {
		return nil, err
	}
	if err := s.store.AddConfig(ctx, c); err != nil {
		return nil, err
	}
	return c, nil
}

// NameTaken is the error of a config whose name a config that is not
// archived has.
func NameTaken(name string) error {
	return &hone.Error{Code: hone.ECONFLICT, Field: "name",
		Message: "a score config named " + name + " exists and is not archived: archive it or choose another name"}
}

// UpdateConfig changes the config ref names (see Config) and counts its
// version up. A built-in config keeps its name and definition, and thumbs
// and workshop_label are never archived: hone records its own judgments
// under them. A config that has scores keeps its definition (bounds, step,
// categories): a new one is made for other values.
func (s *Service) UpdateConfig(ctx context.Context, ref string, u ConfigUpdate) (*Config, error) {
	c, err := s.Config(ctx, ref)
	if err != nil {
		return nil, err
	}
	if c.BuiltIn {
		for _, f := range []struct {
			name    string
			changes bool
		}{
			{"name", u.Name != nil && strings.ToLower(*u.Name) != c.Name},
			{"min", u.Min != nil && (c.Min == nil || *u.Min != *c.Min)},
			{"max", u.Max != nil && (c.Max == nil || *u.Max != *c.Max)},
			{"step", u.Step != nil && (c.Step == nil || *u.Step != *c.Step)},
			{"categories", u.Categories != nil && u.definitionChanged(c)},
		} {
			if f.changes {
				return nil, hone.FieldError(f.name, "%s is one of hone's built-in configs: its %s stays as it is (only description and archived change)", c.Name, f.name)
			}
		}
		if fixed(c) && u.Archived != nil && *u.Archived {
			return nil, hone.FieldError("archived", "%s is never archived: hone records its own judgments under it", c.Name)
		}
	}
	next, changed, err := u.apply(c)
	if err != nil || !changed {
		return c, err
	}
	if u.definitionChanged(c) {
		used, err := s.store.ConfigUsed(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		if used {
			return nil, hone.FieldError(firstDefinitionField(&u, c), "config %s has scores: its bounds, step and categories stay as they are; make a new config for other values", c.Name)
		}
	}
	if err := s.store.UpdateConfig(ctx, next, c.Version); err != nil {
		return nil, err
	}
	return next, nil
}

// firstDefinitionField names the first part of a config's definition u
// changes.
func firstDefinitionField(u *ConfigUpdate, c *Config) string {
	differs := func(a, b *float64) bool { return a != nil && (b == nil || *a != *b) }
	switch {
	case differs(u.Min, c.Min):
		return "min"
	case differs(u.Max, c.Max):
		return "max"
	case differs(u.Step, c.Step):
		return "step"
	}
	return "categories"
}

// Result is what became of one score of a batch.
type Result struct {
	Score *Score
	// Replayed is set when the same score had been recorded under its id
	// before; Score is then the one recorded first.
	Replayed bool
	Err      error
}

// Record records one score.
func (s *Service) Record(ctx context.Context, in Input) (*Score, bool, error) {
	res, err := s.RecordBatch(ctx, []Input{in})
	if err != nil {
		return nil, false, err
	}
	return res[0].Score, res[0].Replayed, res[0].Err
}

// RecordBatch checks every score on its own and records the valid ones in
// one transaction; each result says what became of its input. The error
// is for a failure of the whole batch, when nothing was recorded.
func (s *Service) RecordBatch(ctx context.Context, ins []Input) ([]Result, error) {
	out, scores, configs, err := s.check(ctx, ins)
	if err != nil {
		return nil, err
	}
	return out, s.add(ctx, scores, configs, out)
}

// RecordAll records every score of ins in one transaction, or none: the
// first score refused is the error. A chat command's judgments, given
// together, are kept together.
func (s *Service) RecordAll(ctx context.Context, ins []Input) ([]*Score, error) {
	out, scores, configs, err := s.check(ctx, ins)
	if err != nil {
		return nil, err
	}
	for _, r := range out {
		if r.Err != nil {
			return nil, r.Err
		}
	}
	if err := s.add(ctx, scores, configs, out); err != nil {
		return nil, err
	}
	list := make([]*Score, len(out))
	for i, r := range out {
		if r.Err != nil {
			return nil, r.Err
		}
		list[i] = r.Score
	}
	return list, nil
}

// check prepares the scores of ins: out[i].Err is the error of one that is
// refused, scores[i] the score of one that is not.
func (s *Service) check(ctx context.Context, ins []Input) (out []Result, scores []*Score, configs map[string]*Config, err error) {
	out = make([]Result, len(ins))
	all, err := s.store.Configs(ctx, true)
	if err != nil {
		return nil, nil, nil, err
	}
	configs = make(map[string]*Config, len(all))
	for _, c := range all {
		configs[c.ID] = c
	}
	scores = make([]*Score, len(ins))
	for i := range ins {
		scores[i], out[i].Err = s.prepare(&ins[i], all)
	}
	if err := s.checkTargets(ctx, scores, out); err != nil {
		return nil, nil, nil, err
	}
	return out, scores, configs, nil
}

// add records the scores not refused in one transaction with what the
// followers derive from them, and fills in out.
func (s *Service) add(ctx context.Context, scores []*Score, configs map[string]*Config, out []Result) error {
	var batch []*Score
	var at []int
	for i, sc := range scores {
		if out[i].Err == nil {
			batch, at = append(batch, sc), append(at, i)
		}
	}
	if len(batch) == 0 {
		return nil
	}
	var added []Added
	var ch Change
	err := s.store.Atomically(ctx, func(ctx context.Context) error {
		var err error
		if added, err = s.store.AddScores(ctx, batch); err != nil {
			return err
		}
		ch = Change{}
		for _, a := range added {
			if !a.Existed {
				ch.Added = append(ch.Added, a.Score)
			}
		}
		return s.notify(ctx, ch, configs)
	})
	if err != nil {
		return err
	}
	s.count(ctx, ch.Added)
	for k, a := range added {
		i := at[k]
		switch {
		case !a.Existed:
			out[i].Score = a.Score
		case a.Score.Fingerprint == batch[k].Fingerprint:
			out[i].Score, out[i].Replayed = a.Score, true
		default:
			out[i].Err = &hone.Error{Code: hone.ECONFLICT, Field: "id",
				Message: "score id " + batch[k].ID + " is taken by another score: send a new id, or none"}
		}
	}
	return nil
}

// prepare checks in against the configs and makes its score, without its
// target's prompt version.
func (s *Service) prepare(in *Input, all []*Config) (*Score, error) {
	if err := in.clean(); err != nil {
		return nil, err
	}
	c := resolve(all, in.Config)
	switch {
	case c == nil:
		return nil, hone.FieldError("config", "no score config is named %q or has that id: hone scores configs list shows them", in.Config)
	case c.Archived:
		return nil, hone.FieldError("config", "score config %s is archived: it takes no new scores", in.Config)
	}
	v, err := c.check(in.Value)
	if err != nil {
		return nil, err
	}
	sc := &Score{ID: in.ID, TurnID: in.TurnID, WorkshopID: in.WorkshopID, TraceID: in.TraceID, ConfigID: c.ID, Config: c.Name,
		DataType: c.DataType, Value: v.typed, Number: v.number, Text: v.text, Comment: in.Comment, Source: in.Source, Author: in.Author}
	if sc.ID == "" {
		sc.ID = hone.NewID(idLength)
	}
	sc.Fingerprint = sc.fingerprint()
	return sc, nil
}

// checkTargets looks up the turns and traces of the scores not refused yet:
// one that does not exist refuses its score; a turn's prompt version is
// kept on its scores.
func (s *Service) checkTargets(ctx context.Context, scores []*Score, out []Result) error {
	var turnIDs []string
	traces := map[[2]string]error{}
	for i, sc := range scores {
		if out[i].Err != nil {
			continue
		}
		switch {
		case !storable(sc.TurnID, sc.WorkshopID, sc.TraceID):
		case sc.TurnID != "":
			turnIDs = append(turnIDs, sc.TurnID)
		default:
			traces[[2]string{sc.WorkshopID, sc.TraceID}] = nil
		}
	}
	versions := map[string]string{}
	if len(turnIDs) > 0 && s.opts.Turns != nil {
		slices.Sort(turnIDs)
		var err error
		if versions, err = s.opts.Turns.TurnVersions(ctx, slices.Compact(turnIDs)); err != nil {
			return err
		}
	}
	for key := range traces {
		var err error = hone.Errorf(hone.ENOTFOUND, "workshop traces are not available")
		if s.opts.Traces != nil {
			err = s.opts.Traces.TraceExists(ctx, key[0], key[1])
		}
		if err != nil && hone.ErrorCode(err) != hone.ENOTFOUND {
			return err
		}
		traces[key] = err
	}
	for i, sc := range scores {
		if out[i].Err != nil {
			continue
		}
		if sc.TurnID != "" {
			v, ok := versions[sc.TurnID]
			if !ok {
				out[i].Err = &hone.Error{Code: hone.ENOTFOUND, Field: "turn_id", Message: "turn " + sc.TurnID + " not found"}
			}
			sc.PromptVersion = v
		} else if err, ok := traces[[2]string{sc.WorkshopID, sc.TraceID}]; err != nil || !ok {
			out[i].Err = &hone.Error{Code: hone.ENOTFOUND, Field: "trace_id",
				Message: "workshop " + sc.WorkshopID + " has no trace " + sc.TraceID}
		}
	}
	return nil
}

// storable reports whether every id is text a database can hold: one that
// is not (a NUL, bytes that are not UTF-8) names nothing, and is not looked
// up.
func storable(ids ...string) bool {
	for _, id := range ids {
		if id != hone.CleanText(id) {
			return false
		}
	}
	return true
}

// Score returns a score by id.
func (s *Service) Score(ctx context.Context, id string) (*Score, error) {
	return s.store.Score(ctx, id)
}

// Delete removes a score and returns it; what the followers derive from
// the scores follows, and a follower may refuse (the last 👍/👎 of a rating
// with a correction, the last label of a member's feedback).
func (s *Service) Delete(ctx context.Context, id string) (*Score, error) {
	var gone *Score
	err := s.store.Atomically(ctx, func(ctx context.Context) error {
		var err error
		if gone, err = s.store.DeleteScore(ctx, id); err != nil {
			return err
		}
		c, err := s.store.Config(ctx, gone.ConfigID)
		if err != nil {
			return err
		}
		return s.notify(ctx, Change{Deleted: []*Score{gone}}, map[string]*Config{c.ID: c})
	})
	if err != nil {
		return nil, err
	}
	return gone, nil
}
