package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/honehq/hone"
)

// RecordServer notes that a hone server started and is reached at url.
func (as *AuthStore) RecordServer(ctx context.Context, url string) error {
	ctx, cancel := as.db.limit(ctx)
	defer cancel()
	return as.db.update(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `INSERT INTO servers (url, started_at) VALUES (?, ?)
			ON CONFLICT (url) DO UPDATE SET started_at = excluded.started_at`, url, tx.now)
		if err != nil {
			return fmt.Errorf("record server %s: %w", url, err)
		}
		return nil
	})
}

// LatestServer returns the URL of the hone server that started last on
// this database, and when; ENOTFOUND when none has.
func (as *AuthStore) LatestServer(ctx context.Context) (string, time.Time, error) {
	ctx, cancel := as.db.limit(ctx)
	defer cancel()
	var url string
	var at time.Time
	err := as.db.queryRow(ctx, `SELECT url, started_at FROM servers ORDER BY started_at DESC, url LIMIT 1`).Scan(&url, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return "", time.Time{}, hone.Errorf(hone.ENOTFOUND, "no hone server has started on this database")
	}
	if err != nil {
		return "", time.Time{}, dbError(fmt.Errorf("read the latest server: %w", err))
	}
	return url, at.UTC(), nil
}
