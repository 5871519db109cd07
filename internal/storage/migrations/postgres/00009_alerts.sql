-- +goose Up
-- Proactive alerts the applications sent, the testers' reactions to them
-- (ack, up, down: one per alert and tester) and the types' pauses: the
-- learning loop's reach-out budget.
CREATE TABLE alerts (
    id              TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    type            TEXT NOT NULL,
    text            TEXT NOT NULL DEFAULT '',
    tester_id       TEXT NOT NULL DEFAULT '',
    within_budget   BOOLEAN NOT NULL,
    sent_at         TIMESTAMPTZ NOT NULL
);
CREATE INDEX alerts_conversation ON alerts (conversation_id, sent_at);
CREATE INDEX alerts_type ON alerts (type);

CREATE TABLE alert_reactions (
    alert_id   TEXT NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
    tester_id  TEXT NOT NULL,
    type       TEXT NOT NULL,
    reaction   TEXT NOT NULL,
    reacted_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (alert_id, tester_id)
);
CREATE INDEX alert_reactions_type ON alert_reactions (type, reacted_at);

CREATE TABLE alert_types (
    type       TEXT PRIMARY KEY,
    paused     BOOLEAN NOT NULL DEFAULT FALSE,
    reason     TEXT NOT NULL DEFAULT '',
    paused_at  TIMESTAMPTZ,
    enabled_at TIMESTAMPTZ
);

-- +goose Down
DROP TABLE alert_types;
DROP TABLE alert_reactions;
DROP TABLE alerts;
