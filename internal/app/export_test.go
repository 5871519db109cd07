package app

import (
	"context"
	"log/slog"

	"github.com/honehq/hone/internal/config"
)

// OpenWithoutTelemetry opens hone like Open, keeping no metrics: the
// baseline of the benchmarks that measure what the metrics cost.
func OpenWithoutTelemetry(ctx context.Context, cfg config.Config, log *slog.Logger) (*App, error) {
	return open(ctx, cfg, log, nil)
}
