-- +goose Up
-- Richer turns: the model, its token usage and latency, how the turn
-- arrived, and its W3C trace context, as columns of turns; and the chat's
-- messages in OpenAI's format, one JSON value per turn, in a table of their
-- own (as on SQLite, where a large row slows the turns table down), so that
-- the turns table stays narrow. The trace index holds only turns that have
-- a trace id, so turns without one cost nothing to insert; OpenTelemetry
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
    ADD COLUMN parent_id         TEXT;
CREATE INDEX turns_trace ON turns (trace_id, span_id) WHERE trace_id IS NOT NULL;

CREATE TABLE turn_messages (
    turn_id  TEXT PRIMARY KEY REFERENCES turns (id) ON DELETE CASCADE,
    messages JSONB NOT NULL
);

-- +goose Down
DROP TABLE turn_messages;
DROP INDEX turns_trace;
ALTER TABLE turns
    DROP COLUMN parent_id,
    DROP COLUMN span_id,
    DROP COLUMN trace_id,
    DROP COLUMN source,
    DROP COLUMN latency_ms,
    DROP COLUMN total_tokens,
    DROP COLUMN completion_tokens,
    DROP COLUMN prompt_tokens,
    DROP COLUMN model;
