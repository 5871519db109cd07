-- +goose Up
CREATE TABLE llm_calls (
    id                TEXT PRIMARY KEY,
    purpose           TEXT NOT NULL,
    cause_type        TEXT NOT NULL DEFAULT '',
    cause_id          TEXT NOT NULL DEFAULT '',
    model             TEXT NOT NULL DEFAULT '',
    llm_request       JSONB NOT NULL,
    llm_response      JSONB,
    error             TEXT,
    latency_ms        DOUBLE PRECISION,
    prompt_tokens     BIGINT,
    completion_tokens BIGINT,
    total_tokens      BIGINT,
    created_at        TIMESTAMPTZ NOT NULL
);
CREATE INDEX llm_calls_created ON llm_calls (created_at DESC);
CREATE INDEX llm_calls_purpose ON llm_calls (purpose, created_at);
CREATE INDEX llm_calls_cause ON llm_calls (cause_id);

-- +goose Down
DROP TABLE llm_calls;
