package capture

import (
	"context"
	"strings"
	"sync"

	"github.com/honehq/hone"
)

// MaxNameLength is the longest display name kept, in characters.
const MaxNameLength = 200

// NameStore keeps testers' display names, which the store's sessions carry
// as Session.TesterName.
type NameStore interface {
	// SaveTesterName keeps name as the tester's display name, in place of
	// an earlier one.
	SaveTesterName(ctx context.Context, testerID, name string) error
}

// Names keep the display names testers are shown by on pages beside their
// ids: the name a chat platform gives (Teams, Telegram) or one a tester
// gives. A name is written only when it differs from the one this process
// last wrote, so a chat that repeats it on every message costs nothing.
type Names struct {
	store NameStore
	mu    sync.Mutex
	known map[string]string
}

// maxKnownNames bounds the names Names remembers having written.
const maxKnownNames = 10_000

// NewNames returns Names writing to store.
func NewNames(store NameStore) *Names {
	return &Names{store: store, known: map[string]string{}}
}

// SetTesterName keeps name as the display name of testerID. It refuses a
// blank tester id or name and ones too long, naming the field.
func (n *Names) SetTesterName(ctx context.Context, testerID, name string) error {
	testerID = hone.CleanText(testerID)
	name = strings.TrimSpace(hone.CleanText(name))
	switch {
	case blank(testerID):
		return hone.FieldError("tester_id", "tester_id is required")
	case hone.Chars(testerID) > MaxIDLength:
		return tooLong("tester_id", MaxIDLength)
	case name == "":
		return hone.FieldError("name", "name is required: it is only white space")
	case hone.Chars(name) > MaxNameLength:
		return tooLong("name", MaxNameLength)
	}
	n.mu.Lock()
	same := n.known[testerID] == name
	n.mu.Unlock()
	if same {
		return nil
	}
	if err := n.store.SaveTesterName(ctx, testerID, name); err != nil {
		return err
	}
	n.mu.Lock()
	if len(n.known) >= maxKnownNames {
		clear(n.known)
	}
	n.known[testerID] = name
	n.mu.Unlock()
	return nil
}
