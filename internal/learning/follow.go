package learning

import (
	"context"
	"slices"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/score"
)

// Follows reports whether c is config thumbs: every 👍/👎 is a score of it.
func (s *Service) Follows(c *score.Config) bool { return c.ID == score.BuiltInID(score.Thumbs) }

// ScoresChanged keeps each tester's rating of a turn what their latest
// score of config thumbs says, in the transaction of the change, whatever
// path the score came by (👍/👎 in a chat or a page, POST /turns/{id}/feedback,
// POST /scores). When a tester's last such score of a turn is deleted,
// their rating goes too, unless a correction was given for it.
func (s *Service) ScoresChanged(ctx context.Context, ch score.Change) error {
	type key struct{ turn, tester string }
	var keys []key
	for _, sc := range append(slices.Clone(ch.Added), ch.Deleted...) {
		if k := (key{sc.TurnID, sc.Author}); k.turn != "" && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := strings.Compare(a.turn, b.turn); c != 0 {
			return c
		}
		return strings.Compare(a.tester, b.tester)
	})
	thumbs := []string{score.BuiltInID(score.Thumbs)}
	for _, k := range keys {
		latest, err := s.opts.Scores.Latest(ctx, score.Target{TurnID: k.turn}, thumbs, &k.tester)
		if err != nil {
			return err
		}
		if len(latest) == 0 {
			if err := s.store.DropRating(ctx, k.turn, k.tester); err != nil {
				return err
			}
			continue
		}
		t, err := s.store.Turn(ctx, k.turn)
		if err != nil {
			return err
		}
		sc := latest[0]
		rating := RatingDown
		if sc.Value == true {
			rating = RatingUp
		}
		if err := s.store.SetRating(ctx, &Rating{ID: hone.NewID(idLength), TurnID: t.ID, SessionID: t.SessionID,
			ConversationID: t.ConversationID, TesterID: k.tester, Rating: rating, CreatedAt: sc.CreatedAt, UpdatedAt: sc.CreatedAt}); err != nil {
			return err
		}
	}
	return nil
}

// Service follows the scores of config thumbs.
var _ score.Follower = (*Service)(nil)
