-- +goose Up
-- Response metrics: each turn's objective metrics (a JSON object keyed by
-- metric name, N/A as null), its human scores (JSON, 1 to 5 by name) and the
-- composite scores, as columns so that SQL can average them (NULL is N/A).
ALTER TABLE turns ADD COLUMN metrics TEXT;
ALTER TABLE turns ADD COLUMN scores TEXT;
ALTER TABLE turns ADD COLUMN objective_score REAL;
ALTER TABLE turns ADD COLUMN subjective_score REAL;
ALTER TABLE turns ADD COLUMN overall_score REAL;

-- +goose Down
ALTER TABLE turns DROP COLUMN overall_score;
ALTER TABLE turns DROP COLUMN subjective_score;
ALTER TABLE turns DROP COLUMN objective_score;
ALTER TABLE turns DROP COLUMN scores;
ALTER TABLE turns DROP COLUMN metrics;
