-- +goose Up
-- Richer turns. The model, its token usage and latency, how the turn
-- arrived and its W3C trace context are columns of turns: small, and read,
-- summed and filtered on their own. The chat's messages in OpenAI's format,
-- one JSON text per turn that grows with the conversation, have a table of
-- their own, appended in rowid order: turns is a WITHOUT ROWID table, whose
-- rows past about a quarter of a page spill onto overflow pages that SQLite
-- reads whole at each key comparison, so it stays narrow. The trace index
-- holds only turns that have a trace id, so turns without one cost nothing
-- to insert; OpenTelemetry ingestion finds a turn by its trace id, or by
-- its trace and span id.
ALTER TABLE turns ADD COLUMN model TEXT;
ALTER TABLE turns ADD COLUMN prompt_tokens INTEGER;
ALTER TABLE turns ADD COLUMN completion_tokens INTEGER;
ALTER TABLE turns ADD COLUMN total_tokens INTEGER;
ALTER TABLE turns ADD COLUMN latency_ms REAL;
ALTER TABLE turns ADD COLUMN source TEXT;
ALTER TABLE turns ADD COLUMN trace_id TEXT;
ALTER TABLE turns ADD COLUMN span_id TEXT;
ALTER TABLE turns ADD COLUMN parent_id TEXT;
CREATE INDEX turns_trace ON turns (trace_id, span_id) WHERE trace_id IS NOT NULL;

CREATE TABLE turn_messages (
    session_id  TEXT NOT NULL,
    turn_number INTEGER NOT NULL,
    messages    TEXT NOT NULL,
    PRIMARY KEY (session_id, turn_number),
    FOREIGN KEY (session_id, turn_number) REFERENCES turns (session_id, turn_number) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE turn_messages;
DROP INDEX turns_trace;
ALTER TABLE turns DROP COLUMN parent_id;
ALTER TABLE turns DROP COLUMN span_id;
ALTER TABLE turns DROP COLUMN trace_id;
ALTER TABLE turns DROP COLUMN source;
ALTER TABLE turns DROP COLUMN latency_ms;
ALTER TABLE turns DROP COLUMN total_tokens;
ALTER TABLE turns DROP COLUMN completion_tokens;
ALTER TABLE turns DROP COLUMN prompt_tokens;
ALTER TABLE turns DROP COLUMN model;
