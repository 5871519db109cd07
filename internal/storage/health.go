package storage

import (
	"context"
	"fmt"
	"time"
)

// HealthTimeout bounds CheckWrite.
const HealthTimeout = 2 * time.Second

// CheckWrite proves the database takes writes: it updates the one row of the
// health table in a transaction of its own, within HealthTimeout. It fails
// like every store call does when the database is down, timing out or full.
func (db *DB) CheckWrite(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, HealthTimeout)
	defer cancel()
	return db.update(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `INSERT INTO health (id, checked_at) VALUES (1, ?)
			ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at`, tx.now); err != nil {
			return fmt.Errorf("health check write: %w", err)
		}
		return nil
	})
}
