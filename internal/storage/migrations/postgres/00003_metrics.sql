-- +goose Up
-- Response metrics: each turn's objective metrics (a JSON object keyed by
-- metric name, N/A as null), its human scores (JSON, 1 to 5 by name) and the
-- composite scores, as columns so that SQL can average them (NULL is N/A).
-- metrics is JSON rather than JSONB to keep the metric set's order of keys.
ALTER TABLE turns
    ADD COLUMN metrics          JSON,
    ADD COLUMN scores           JSONB,
    ADD COLUMN objective_score  DOUBLE PRECISION,
    ADD COLUMN subjective_score DOUBLE PRECISION,
    ADD COLUMN overall_score    DOUBLE PRECISION;

-- +goose Down
ALTER TABLE turns
    DROP COLUMN overall_score,
    DROP COLUMN subjective_score,
    DROP COLUMN objective_score,
    DROP COLUMN scores,
    DROP COLUMN metrics;
