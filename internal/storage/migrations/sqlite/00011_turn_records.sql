-- +goose Up
-- Richer turns: the model, its token usage and latency, how the turn
-- arrived and its W3C trace context, each a column (small, and read and
-- filtered on their own); the chat's messages in OpenAI's format, one JSON
-- text, the last column of the row, so that reading the other columns never
-- reads it. The trace index holds only turns that have a trace id, so turns
-- without one cost nothing to insert; OpenTelemetry ingestion finds a turn
-- by its trace id, or by its trace and span id.
ALTER TABLE turns ADD COLUMN model TEXT;
ALTER TABLE turns ADD COLUMN prompt_tokens INTEGER;
ALTER TABLE turns ADD COLUMN completion_tokens INTEGER;
ALTER TABLE turns ADD COLUMN total_tokens INTEGER;
ALTER TABLE turns ADD COLUMN latency_ms REAL;
ALTER TABLE turns ADD COLUMN source TEXT;
ALTER TABLE turns ADD COLUMN trace_id TEXT;
ALTER TABLE turns ADD COLUMN span_id TEXT;
ALTER TABLE turns ADD COLUMN parent_id TEXT;
ALTER TABLE turns ADD COLUMN messages TEXT;
CREATE INDEX turns_trace ON turns (trace_id, span_id) WHERE trace_id IS NOT NULL;

-- +goose Down
DROP INDEX turns_trace;
ALTER TABLE turns DROP COLUMN messages;
ALTER TABLE turns DROP COLUMN parent_id;
ALTER TABLE turns DROP COLUMN span_id;
ALTER TABLE turns DROP COLUMN trace_id;
ALTER TABLE turns DROP COLUMN source;
ALTER TABLE turns DROP COLUMN latency_ms;
ALTER TABLE turns DROP COLUMN total_tokens;
ALTER TABLE turns DROP COLUMN completion_tokens;
ALTER TABLE turns DROP COLUMN prompt_tokens;
ALTER TABLE turns DROP COLUMN model;
