-- +goose Up
-- Suggestion tracking: each record as received (raw, every field) with the
-- figures hone counts by, and the rollups the statistics read: one count
-- per kind of question, day (UTC), server, version and key.
CREATE TABLE suggestion_records (
    id                  TEXT PRIMARY KEY,
    ts                  TIMESTAMP NOT NULL,
    server              TEXT NOT NULL,
    session             TEXT NOT NULL,
    version             TEXT NOT NULL,
    model               TEXT NOT NULL,
    temperature         REAL,
    match_type          TEXT NOT NULL,
    accepted_index      INTEGER,
    suggestions         INTEGER NOT NULL,
    cycle_count         INTEGER NOT NULL,
    time_to_action_ms   REAL NOT NULL,
    context_block_count INTEGER NOT NULL,
    total_tokens        INTEGER NOT NULL,
    viewed_but_rejected BOOLEAN NOT NULL,
    cycled_back         BOOLEAN NOT NULL,
    raw                 TEXT NOT NULL
);
CREATE INDEX suggestion_records_session ON suggestion_records (session, server);
CREATE INDEX suggestion_records_ts ON suggestion_records (ts);

CREATE TABLE suggestion_rollups (
    kind    TEXT NOT NULL,
    day     TIMESTAMP NOT NULL,
    server  TEXT NOT NULL,
    version TEXT NOT NULL,
    k1      TEXT NOT NULL,
    k2      TEXT NOT NULL,
    n       INTEGER NOT NULL,
    PRIMARY KEY (kind, day, server, version, k1, k2)
);
CREATE INDEX suggestion_rollups_day ON suggestion_rollups (day);

-- +goose Down
DROP TABLE suggestion_rollups;
DROP TABLE suggestion_records;
