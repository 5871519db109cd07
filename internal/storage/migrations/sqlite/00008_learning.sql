-- +goose Up
-- The learning loop: ratings of turns (👍/👎), the corrections a 👎 asks
-- for, the flows that wait for them, learning statements, synthesis runs
-- and the loop's settings. Tables of the learning capability only.
CREATE TABLE turn_feedback (
    id              TEXT PRIMARY KEY,
    turn_id         TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    session_id      TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    tester_id       TEXT NOT NULL,
    rating          TEXT NOT NULL,
    intent          TEXT NOT NULL DEFAULT '',
    context_type    TEXT NOT NULL DEFAULT '',
    created_at      TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL,
    UNIQUE (turn_id, tester_id)
);
CREATE INDEX turn_feedback_updated ON turn_feedback (updated_at);
CREATE INDEX turn_feedback_rating ON turn_feedback (rating, updated_at);

CREATE TABLE corrections (
    id              TEXT PRIMARY KEY,
    feedback_id     TEXT NOT NULL REFERENCES turn_feedback (id) ON DELETE CASCADE,
    correction_text TEXT NOT NULL,
    created_at      TIMESTAMP NOT NULL,
    processed       BOOLEAN NOT NULL DEFAULT FALSE,
    run_id          TEXT NOT NULL DEFAULT ''
);
CREATE INDEX corrections_pending ON corrections (processed, created_at);
CREATE INDEX corrections_feedback ON corrections (feedback_id);

CREATE TABLE correction_flows (
    conversation_id TEXT NOT NULL,
    tester_id       TEXT NOT NULL,
    feedback_id     TEXT NOT NULL REFERENCES turn_feedback (id) ON DELETE CASCADE,
    started_at      TIMESTAMP NOT NULL,
    PRIMARY KEY (conversation_id, tester_id)
);

CREATE TABLE learnings (
    id                 TEXT PRIMARY KEY,
    tester_id          TEXT NOT NULL DEFAULT '',
    pattern            TEXT NOT NULL,
    prompt_adjustment  TEXT NOT NULL,
    confidence         REAL NOT NULL,
    state              TEXT NOT NULL,
    reason             TEXT NOT NULL DEFAULT '',
    conflicts_with     TEXT NOT NULL DEFAULT '',
    source_corrections TEXT NOT NULL DEFAULT '[]',
    manual             BOOLEAN NOT NULL DEFAULT FALSE,
    run_id             TEXT NOT NULL DEFAULT '',
    created_at         TIMESTAMP NOT NULL,
    updated_at         TIMESTAMP NOT NULL
);
CREATE INDEX learnings_order ON learnings (created_at, id);
CREATE INDEX learnings_tester ON learnings (tester_id, created_at);

CREATE TABLE learning_runs (
    id           TEXT PRIMARY KEY,
    status       TEXT NOT NULL,
    error        TEXT NOT NULL DEFAULT '',
    corrections  INTEGER NOT NULL DEFAULT 0,
    learning_ids TEXT NOT NULL DEFAULT '[]',
    attempts     INTEGER NOT NULL DEFAULT 0,
    heartbeat_at TIMESTAMP,
    created_at   TIMESTAMP NOT NULL,
    updated_at   TIMESTAMP NOT NULL
);
CREATE INDEX learning_runs_status ON learning_runs (status, created_at);

CREATE TABLE learning_settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- generation changes with every change of learnings or settings, so that
-- each process can tell when its cached prompt is stale.
CREATE TABLE learning_state (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    generation INTEGER NOT NULL
);
INSERT INTO learning_state (id, generation) VALUES (1, 0);

-- +goose Down
DROP TABLE learning_state;
DROP TABLE learning_settings;
DROP TABLE learning_runs;
DROP TABLE learnings;
DROP TABLE correction_flows;
DROP TABLE corrections;
DROP TABLE turn_feedback;
