package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/honehq/hone/internal/bots"
)

// BotStore keeps what hone's chat-platform bots need across restarts.
type BotStore struct{ db *DB }

// Bots returns the store of the chat-platform bots.
func (db *DB) Bots() *BotStore { return &BotStore{db} }

var _ bots.Offsets = (*BotStore)(nil)

// NextUpdate is the next update the bot reads, 0 when it read none yet.
func (bs *BotStore) NextUpdate(ctx context.Context, bot string) (int64, error) {
	ctx, cancel := bs.db.limit(ctx)
	defer cancel()
	var next int64
	err := bs.db.queryRow(ctx, `SELECT next_update FROM bot_offsets WHERE bot = ?`, bot).Scan(&next)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	} else if err != nil {
		return 0, dbError(fmt.Errorf("read the next update of bot %q: %w", bot, err))
	}
	return next, nil
}

// SaveNextUpdate keeps next as the bot's next update, unless a larger one
// is kept already.
func (bs *BotStore) SaveNextUpdate(ctx context.Context, bot string, next int64) error {
	ctx, cancel := bs.db.limit(ctx)
	defer cancel()
	return bs.db.update(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `INSERT INTO bot_offsets (bot, next_update, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (bot) DO UPDATE SET next_update = excluded.next_update, updated_at = excluded.updated_at
			WHERE excluded.next_update > bot_offsets.next_update`, bot, next, tx.now)
		if err != nil {
			return fmt.Errorf("save the next update of bot %q: %w", bot, err)
		}
		return nil
	})
}
