-- +goose Up
CREATE TABLE llm_calls (
    id                TEXT PRIMARY KEY,
    purpose           TEXT NOT NULL,
    cause_type        TEXT NOT NULL DEFAULT '',
    cause_id          TEXT NOT NULL DEFAULT '',
    model             TEXT NOT NULL DEFAULT '',
    llm_request       TEXT NOT NULL,
    llm_response      TEXT,
    error             TEXT,
    latency_ms        REAL,
    prompt_tokens     INTEGER,
    completion_tokens INTEGER,
    total_tokens      INTEGER,
    created_at        TIMESTAMP NOT NULL
);
CREATE INDEX llm_calls_created ON llm_calls (created_at DESC);
CREATE INDEX llm_calls_purpose ON llm_calls (purpose, created_at);
CREATE INDEX llm_calls_cause ON llm_calls (cause_id);

-- +goose Down
DROP TABLE llm_calls;
