-- +goose Up
CREATE TABLE sessions (
    id                    TEXT PRIMARY KEY,
    conversation_id       TEXT NOT NULL,
    session_start         TIMESTAMP NOT NULL,
    session_end           TIMESTAMP,
    master_prompt_version TEXT NOT NULL DEFAULT '',
    branch_name           TEXT NOT NULL DEFAULT '',
    total_turns           INTEGER NOT NULL DEFAULT 0,
    total_improvements    INTEGER NOT NULL DEFAULT 0,
    tester_id             TEXT NOT NULL,
    tester_email          TEXT NOT NULL DEFAULT '',
    metadata              TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX sessions_start ON sessions (session_start DESC);
CREATE INDEX sessions_tester ON sessions (tester_id, session_start DESC);
CREATE INDEX sessions_version ON sessions (master_prompt_version);

CREATE TABLE conversations (
    id                 TEXT PRIMARY KEY,
    current_session_id TEXT REFERENCES sessions (id) ON DELETE SET NULL,
    updated_at         TIMESTAMP NOT NULL
);

CREATE TABLE turns (
    id                 TEXT NOT NULL UNIQUE,
    session_id         TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    turn_number        INTEGER NOT NULL,
    user_message       TEXT NOT NULL,
    response           TEXT NOT NULL,
    created_at         TIMESTAMP NOT NULL,
    search_results     TEXT,
    avg_similarity     REAL,
    processing_time_ms REAL,
    metadata           TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (session_id, turn_number)
) WITHOUT ROWID;

CREATE TABLE improvements (
    id               TEXT NOT NULL UNIQUE,
    turn_id          TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    session_id       TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    improvement_note TEXT NOT NULL,
    category         TEXT,
    created_at       TIMESTAMP NOT NULL,
    metadata         TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (turn_id, created_at, id)
) WITHOUT ROWID;
CREATE INDEX improvements_category ON improvements (category);

-- +goose Down
DROP TABLE improvements;
DROP TABLE turns;
DROP TABLE conversations;
DROP TABLE sessions;
