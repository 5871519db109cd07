-- +goose Up
-- Richer turns. The model, its token usage and latency, how the turn
-- arrived and its W3C trace context are columns of turns: small, and read,
-- summed and filtered on their own. The chat's messages in OpenAI's format,
-- one JSON value per turn that grows with the conversation, have a table of
-- their own, as on SQLite, so that turns stays narrow. The trace index
-- holds only turns that have a trace id, so turns without one cost nothing
-- to insert; OpenTelemetry ingestion finds a turn by its trace id, or by
-- its trace and span id.
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
    session_id  TEXT NOT NULL,
    turn_number INTEGER NOT NULL,
    messages    JSONB NOT NULL,
    PRIMARY KEY (session_id, turn_number),
    FOREIGN KEY (session_id, turn_number) REFERENCES turns (session_id, turn_number) ON DELETE CASCADE
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
