package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/honehq/hone/internal/bots"
)

var _ bots.Conversations = (*BotStore)(nil)

// SaveReference keeps ref as its conversation's reference.
func (bs *BotStore) SaveReference(ctx context.Context, ref bots.Reference) error {
	ctx, cancel := bs.db.limit(ctx)
	defer cancel()
	return bs.db.update(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `INSERT INTO bot_conversations
			(platform, conversation_id, service_url, bot_id, bot_name, tenant_id, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (platform, conversation_id) DO UPDATE SET service_url = excluded.service_url,
			bot_id = excluded.bot_id, bot_name = excluded.bot_name, tenant_id = excluded.tenant_id, updated_at = excluded.updated_at`,
			ref.Platform, ref.ConversationID, ref.ServiceURL, ref.BotID, ref.BotName, ref.TenantID, tx.now)
		if err != nil {
			return fmt.Errorf("save the reference of %s conversation %q: %w", ref.Platform, ref.ConversationID, err)
		}
		return nil
	})
}

// Reference is the conversation's reference; false when none is kept.
func (bs *BotStore) Reference(ctx context.Context, platform, conversationID string) (bots.Reference, bool, error) {
	ctx, cancel := bs.db.limit(ctx)
	defer cancel()
	ref := bots.Reference{Platform: platform, ConversationID: conversationID}
	err := bs.db.queryRow(ctx, `SELECT service_url, bot_id, bot_name, tenant_id FROM bot_conversations
		WHERE platform = ? AND conversation_id = ?`, platform, conversationID).Scan(&ref.ServiceURL, &ref.BotID, &ref.BotName, &ref.TenantID)
	if errors.Is(err, sql.ErrNoRows) {
		return bots.Reference{}, false, nil
	} else if err != nil {
		return bots.Reference{}, false, dbError(fmt.Errorf("read the reference of %s conversation %q: %w", platform, conversationID, err))
	}
	return ref, true, nil
}

// SaveAnswer keeps that message messageID is the answer of turnID and
// makes it its conversation's latest answer, forgetting answers older than
// bots.AnswerMaxAge in the same transaction.
func (bs *BotStore) SaveAnswer(ctx context.Context, platform, conversationID, messageID, turnID string) error {
	ctx, cancel := bs.db.limit(ctx)
	defer cancel()
	return bs.db.update(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `DELETE FROM bot_answers WHERE created_at < ?`, tx.now.Add(-bots.AnswerMaxAge)); err != nil {
			return fmt.Errorf("forget old answers: %w", err)
		}
		if _, err := tx.exec(ctx, `INSERT INTO bot_answers (platform, message_id, conversation_id, turn_id, created_at)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (platform, message_id) DO UPDATE SET conversation_id = excluded.conversation_id,
			turn_id = excluded.turn_id, created_at = excluded.created_at`,
			platform, messageID, conversationID, turnID, tx.now); err != nil {
			return fmt.Errorf("save the answer %q of %s conversation %q: %w", messageID, platform, conversationID, err)
		}
		if _, err := tx.exec(ctx, `UPDATE bot_conversations SET latest_turn_id = ?, updated_at = ?
			WHERE platform = ? AND conversation_id = ?`, turnID, tx.now, platform, conversationID); err != nil {
			return fmt.Errorf("save the latest answer of %s conversation %q: %w", platform, conversationID, err)
		}
		return nil
	})
}

// AnswerTurn is the turn of the answer message messageID holds; false when
// it is not known (or was forgotten).
func (bs *BotStore) AnswerTurn(ctx context.Context, platform, messageID string) (string, bool, error) {
	ctx, cancel := bs.db.limit(ctx)
	defer cancel()
	var turnID string
	err := bs.db.queryRow(ctx, `SELECT turn_id FROM bot_answers WHERE platform = ? AND message_id = ? AND created_at >= ?`,
		platform, messageID, bs.db.now().Add(-bots.AnswerMaxAge)).Scan(&turnID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	} else if err != nil {
		return "", false, dbError(fmt.Errorf("read the answer %q of %s: %w", messageID, platform, err))
	}
	return turnID, true, nil
}

// LatestAnswer is the turn of the conversation's latest answer; false when
// none is kept.
func (bs *BotStore) LatestAnswer(ctx context.Context, platform, conversationID string) (string, bool, error) {
	ctx, cancel := bs.db.limit(ctx)
	defer cancel()
	var turnID string
	err := bs.db.queryRow(ctx, `SELECT latest_turn_id FROM bot_conversations WHERE platform = ? AND conversation_id = ?`,
		platform, conversationID).Scan(&turnID)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && turnID == "") {
		return "", false, nil
	} else if err != nil {
		return "", false, dbError(fmt.Errorf("read the latest answer of %s conversation %q: %w", platform, conversationID, err))
	}
	return turnID, true, nil
}
