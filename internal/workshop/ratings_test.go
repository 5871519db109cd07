package workshop_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/workshop"
)

// The store gives back every label of a workshop, each with its trace and
// reviewer, and only that workshop's.
func TestRatingsAreEveryLabelOfTheWorkshop(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		f := newFixture(t, db, false)
		members := []workshop.Access{f.member("Ann", "participant"), f.member("Bo", "participant"), f.member("Cy", "participant")}
		f.begin(4, 4, true)
		other := newFixture(t, db, false)
		stranger := other.member("Dee", "participant")
		other.begin(1, 1, false)
		if _, err := other.svc.SubmitFeedback(other.as(stranger), other.ws.ID, workshop.FeedbackInput{TraceID: "t1", UserID: stranger.ID, Label: "bad", Comment: "no"}); err != nil {
			t.Fatal(err)
		}
		var want []string
		for i, m := range members {
			for tr := 1; tr <= 4-i; tr++ {
				label := []string{"good", "bad"}[(i+tr)%2]
				trace := fmt.Sprintf("t%d", tr)
				if _, err := f.svc.SubmitFeedback(f.as(m), f.ws.ID, workshop.FeedbackInput{TraceID: trace, UserID: m.ID, Label: strings.ToUpper(label), Comment: "c"}); err != nil {
					t.Fatal(err)
				}
				want = append(want, trace+" "+m.ID+" "+label)
			}
		}
		rs, err := db.Workshops().Ratings(admin, f.ws.ID)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rs {
			got = append(got, r.TraceID+" "+r.UserID+" "+r.Label)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("ratings\n got %q\nwant %q", got, want)
		}
	})
}
