package workshop

import (
	"context"
	"slices"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/score"
)

// Follows reports whether c is config workshop_label: every GOOD/BAD label
// is a score of it.
func (s *Service) Follows(c *score.Config) bool { return c.ID == score.BuiltInID(score.WorkshopLabel) }

// ScoresChanged keeps each member's feedback of a trace what their latest
// score of config workshop_label says, in the transaction of the change,
// whatever path the score came by (the review pages, the workshop routes,
// POST /scores). A label by someone who is no member of the workshop is a
// score only: it is in no member's feedback, so in no agreement. A
// member's last label of a trace is not deleted while their feedback,
// with its follow-up answers, stands.
func (s *Service) ScoresChanged(ctx context.Context, ch score.Change) error {
	var keys [][3]string
	for _, sc := range append(slices.Clone(ch.Added), ch.Deleted...) {
		if k := [3]string{sc.WorkshopID, sc.TraceID, sc.Author}; k[0] != "" && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b [3]string) int {
		return strings.Compare(a[0]+"\x00"+a[1]+"\x00"+a[2], b[0]+"\x00"+b[1]+"\x00"+b[2])
	})
	labels := []string{score.BuiltInID(score.WorkshopLabel)}
	for _, k := range keys {
		latest, err := s.opts.Scores.Latest(ctx, score.Target{WorkshopID: k[0], TraceID: k[1]}, labels, &k[2])
		if err != nil {
			return err
		}
		if len(latest) == 0 {
			_, err := s.store.Feedback(ctx, k[0], k[1], k[2])
			if err == nil {
				return hone.Errorf(hone.ECONFLICT, "this is the last label of member %s on trace %s, and their feedback stands "+
					"with it: label the trace again to change it", k[2], k[1])
			} else if hone.ErrorCode(err) != hone.ENOTFOUND {
				return err
			}
			continue
		}
		sc := latest[0]
		label, _ := sc.Value.(string)
		if _, err := s.store.SetLabel(ctx, k[0], k[1], k[2], strings.ToLower(label), sc.Comment, sc.CreatedAt); err != nil {
			return err
		}
	}
	return nil
}

// Service follows the scores of config workshop_label.
var _ score.Follower = (*Service)(nil)
