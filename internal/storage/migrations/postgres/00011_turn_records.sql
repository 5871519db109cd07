-- +goose Up
-- Richer turns: the model, its token usage and latency, how the turn
-- arrived and its W3C trace context, each a column (small, and read and
-- filtered on their own); the chat's messages in OpenAI's format, one JSONB
-- value, which PostgreSQL keeps out of line (TOAST) when large, so that the
-- table's rows stay narrow. The trace index holds only turns that have a
-- trace id, so turns without one cost nothing to insert; OpenTelemetry
-- ingestion finds a turn by its trace id, or by its trace and span id.
ALTER TABLE turns
    ADD COLUMN model             TEXT,
    ADD COLUMN prompt_tokens     BIGINT,
    ADD COLUMN completion_tokens BIGINT,
    ADD COLUMN total_tokens      BIGINT,
    ADD COLUMN latency_ms        DOUBLE PRECISION,
    ADD COLUMN source            TEXT,
    ADD COLUMN trace_id          TEXT,
    ADD COLUMN span_id           TEXT,
    ADD COLUMN parent_id         TEXT,
    ADD COLUMN messages          JSONB;
CREATE INDEX turns_trace ON turns (trace_id, span_id) WHERE trace_id IS NOT NULL;

-- +goose Down
DROP INDEX turns_trace;
ALTER TABLE turns
    DROP COLUMN messages,
    DROP COLUMN parent_id,
    DROP COLUMN span_id,
    DROP COLUMN trace_id,
    DROP COLUMN source,
    DROP COLUMN latency_ms,
    DROP COLUMN total_tokens,
    DROP COLUMN completion_tokens,
    DROP COLUMN prompt_tokens,
    DROP COLUMN model;
