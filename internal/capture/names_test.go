package capture

import (
	"context"
	"strings"
	"testing"

	"github.com/honehq/hone"
)

type nameWrites struct{ saved [][2]string }

func (w *nameWrites) SaveTesterName(_ context.Context, id, name string) error {
	w.saved = append(w.saved, [2]string{id, name})
	return nil
}

func TestSetTesterName(t *testing.T) {
	for _, c := range []struct {
		what, id, name string
		field          string
		saved          string
	}{
		{what: "a name", id: "teams:meg", name: "Meg Bowen", saved: "Meg Bowen"},
		{what: "spaces around", id: "teams:meg", name: "  Meg Bowen\n", saved: "Meg Bowen"},
		{what: "no tester", id: " ", name: "Meg", field: "tester_id"},
		{what: "a long tester id", id: strings.Repeat("m", MaxIDLength+1), name: "Meg", field: "tester_id"},
		{what: "a blank name", id: "teams:meg", name: " \t", field: "name"},
		{what: "a long name", id: "teams:meg", name: strings.Repeat("é", MaxNameLength+1), field: "name"},
	} {
		t.Run(c.what, func(t *testing.T) {
			w := &nameWrites{}
			err := NewNames(w).SetTesterName(context.Background(), c.id, c.name)
			if c.field != "" {
				if hone.ErrorCode(err) != hone.EINVALID || !strings.Contains(hone.ErrorMessage(err), c.field) || len(w.saved) != 0 {
					t.Fatalf("err %v, saved %v; want an error naming %s and nothing saved", err, w.saved, c.field)
				}
				return
			}
			if err != nil || len(w.saved) != 1 || w.saved[0][1] != c.saved {
				t.Fatalf("err %v, saved %v; want %q", err, w.saved, c.saved)
			}
		})
	}
}

// A name is written again only when it changed.
func TestSetTesterNameWritesChangesOnly(t *testing.T) {
	w := &nameWrites{}
	n := NewNames(w)
	for _, name := range []string{"Meg", "Meg", "Megan", "Megan", "Meg"} {
		if err := n.SetTesterName(context.Background(), "teams:meg", name); err != nil {
			t.Fatal(err)
		}
	}
	if len(w.saved) != 3 {
		t.Fatalf("writes %v, want Meg, Megan, Meg", w.saved)
	}
}
