package storage

import (
	"context"
	"fmt"
)

// MigrateTo brings the schema up to version and no further: the schema of
// an earlier release, for the tests that upgrade one.
func (db *DB) MigrateTo(ctx context.Context, version int64) error {
	p, err := db.migrator()
	if err != nil {
		return err
	}
	if _, err := p.UpTo(ctx, version); err != nil {
		return fmt.Errorf("migrate %s database to %d: %w", db.dialect, version, err)
	}
	return nil
}
