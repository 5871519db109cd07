package storage_test

import (
	"context"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
)

// A NUL in a value that reaches the database is the caller's error, not
// hone's: PostgreSQL refuses it in text (SQLSTATE 22021), SQLite finds
// nothing.
func TestNULInALookupIsNoInternalError(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		_, err := db.Workshops().Workshop(context.Background(), "w\x00")
		switch code := hone.ErrorCode(err); code {
		case hone.EINVALID, hone.ENOTFOUND:
		default:
			t.Fatalf("a NUL in an id: %s (%v)", code, err)
		}
	})
}
