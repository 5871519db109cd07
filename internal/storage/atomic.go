package storage

import "context"

// txKey is the key of the write transaction a context carries.
type txKey struct{}

// Atomically runs fn in one write transaction: every store call made with
// the context fn is given, of any store of this database, is part of it
// (its writes and its reads), and fn's error rolls them all back. Called
// with a context that carries a transaction already, fn joins it. fn must
// not start goroutines that use the context.
func (db *DB) Atomically(ctx context.Context, fn func(ctx context.Context) error) error {
	if db.txOf(ctx) != nil {
		return fn(ctx)
	}
	ctx, cancel := db.limit(ctx)
	defer cancel()
	return db.update(ctx, func(tx *Tx) error {
		return fn(context.WithValue(ctx, txKey{}, tx))
	})
}

// txOf returns the transaction of db that ctx carries, or nil.
func (db *DB) txOf(ctx context.Context) *Tx {
	if tx, ok := ctx.Value(txKey{}).(*Tx); ok && tx.db == db {
		return tx
	}
	return nil
}
