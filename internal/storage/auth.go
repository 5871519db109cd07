package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/honehq/hone"
)

// AuthStore keeps what sign-in needs: the signing secret and the one-time
// sign-in links.
type AuthStore struct{ db *DB }

// Auth returns the store of sign-in secrets and links.
func (db *DB) Auth() *AuthStore { return &AuthStore{db} }

// Secret returns the secret called name, creating it with newValue when
// there is none yet. Several servers sharing one database agree on it.
func (as *AuthStore) Secret(ctx context.Context, name string, newValue func() string) (string, error) {
	ctx, cancel := as.db.limit(ctx)
	defer cancel()
	var v string
	err := as.db.queryRow(ctx, `SELECT value FROM secrets WHERE name = ?`, name).Scan(&v)
	if err == nil {
		return v, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", dbError(fmt.Errorf("read secret %s: %w", name, err))
	}
	err = as.db.update(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `INSERT INTO secrets (name, value, created_at) VALUES (?, ?, ?)
			ON CONFLICT (name) DO NOTHING`, name, newValue(), tx.now); err != nil {
			return fmt.Errorf("create secret %s: %w", name, err)
		}
		return tx.queryRow(ctx, `SELECT value FROM secrets WHERE name = ?`, name).Scan(&v)
	})
	return v, err
}

// RotateSecret replaces the secret called name with value.
func (as *AuthStore) RotateSecret(ctx context.Context, name, value string) error {
	ctx, cancel := as.db.limit(ctx)
	defer cancel()
	return as.db.update(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `INSERT INTO secrets (name, value, created_at) VALUES (?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET value = excluded.value, created_at = excluded.created_at`, name, value, tx.now)
		if err != nil {
			return fmt.Errorf("rotate secret %s: %w", name, err)
		}
		return nil
	})
}

// CreateSignInLink keeps the hash of a one-time sign-in token until expires.
func (as *AuthStore) CreateSignInLink(ctx context.Context, tokenHash string, expires time.Time) error {
	ctx, cancel := as.db.limit(ctx)
	defer cancel()
	return as.db.update(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `DELETE FROM signin_links WHERE expires_at < ?`, tx.now); err != nil {
			return fmt.Errorf("forget expired sign-in links: %w", err)
		}
		if _, err := tx.exec(ctx, `INSERT INTO signin_links (token_hash, created_at, expires_at) VALUES (?, ?, ?)`,
			tokenHash, tx.now, expires.UTC()); err != nil {
			return fmt.Errorf("create sign-in link: %w", err)
		}
		return nil
	})
}

// UseSignInLink marks the sign-in link with tokenHash used. It fails with
// EUNAUTHORIZED when there is no such link, or it was used or has expired.
func (as *AuthStore) UseSignInLink(ctx context.Context, tokenHash string) error {
	ctx, cancel := as.db.limit(ctx)
	defer cancel()
	return as.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE signin_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?`,
			tx.now, tokenHash, tx.now)
		if err != nil {
			return fmt.Errorf("use sign-in link: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return hone.Errorf(hone.EUNAUTHORIZED, "This sign-in link is not valid: it was used already, has expired or was never issued. Ask for a new one (hone login-link).")
		}
		return nil
	})
}
