package storage

import (
	"context"
	"fmt"
)

// TurnVersions returns the prompt version of each of the turns ids names
// that exists: what scores need of the turns they judge (score.Turns).
func (cs *CaptureStore) TurnVersions(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	for part := range chunkIDs(ids) {
		ctx, cancel := cs.db.limit(ctx)
		rows, err := cs.db.query(ctx, `SELECT t.id, s.master_prompt_version FROM turns t JOIN sessions s ON s.id = t.session_id
			WHERE t.id IN (`+placeholders(len(part))+`)`, anySlice(part)...)
		if err != nil {
			cancel()
			return nil, dbError(fmt.Errorf("find turns: %w", err))
		}
		for rows.Next() {
			var id, version string
			if err := rows.Scan(&id, &version); err != nil {
				rows.Close()
				cancel()
				return nil, dbError(fmt.Errorf("find turns: %w", err))
			}
			out[id] = version
		}
		err = rows.Err()
		rows.Close()
		cancel()
		if err != nil {
			return nil, dbError(fmt.Errorf("find turns: %w", err))
		}
	}
	return out, nil
}
