package storage

import (
	"context"
	"fmt"

	"github.com/honehq/hone/internal/capture"
)

var _ capture.NameStore = (*CaptureStore)(nil)

// SaveTesterName keeps name as the tester's display name.
func (cs *CaptureStore) SaveTesterName(ctx context.Context, testerID, name string) error {
	ctx, cancel := cs.db.limit(ctx)
	defer cancel()
	return cs.db.update(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `INSERT INTO tester_names (tester_id, display_name, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (tester_id) DO UPDATE SET display_name = excluded.display_name, updated_at = excluded.updated_at`,
			testerID, name, tx.now)
		if err != nil {
			return fmt.Errorf("save the name of tester %q: %w", testerID, err)
		}
		return nil
	})
}

// withNames sets the TesterName of sessions from the names kept.
func (cs *CaptureStore) withNames(ctx context.Context, sessions ...*capture.Session) error {
	seen := map[string]bool{}
	var ids []string
	for _, s := range sessions {
		if s.TesterID != "" && !seen[s.TesterID] {
			seen[s.TesterID] = true
			ids = append(ids, s.TesterID)
		}
	}
	names := map[string]string{}
	for chunk := range chunkIDs(ids) {
		rows, err := cs.db.query(ctx, `SELECT tester_id, display_name FROM tester_names WHERE tester_id IN (`+
			placeholders(len(chunk))+`)`, anySlice(chunk)...)
		if err != nil {
			return dbError(fmt.Errorf("read testers' names: %w", err))
		}
		for rows.Next() {
			var id, name string
			if err := rows.Scan(&id, &name); err != nil {
				rows.Close()
				return dbError(fmt.Errorf("read testers' names: %w", err))
			}
			names[id] = name
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return dbError(fmt.Errorf("read testers' names: %w", err))
		}
	}
	for _, s := range sessions {
		s.TesterName = names[s.TesterID]
	}
	return nil
}
