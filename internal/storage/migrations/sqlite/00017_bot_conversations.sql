-- +goose Up
-- What hone's chat-platform bots know of their conversations across
-- restarts: where to post an alert into each (a Teams conversation
-- reference) and its latest answer, and which turn each answer a bot sent
-- holds, so that a 👍/👎 pressed under it after a restart rates that turn.
-- Answers older than 90 days are forgotten when a newer one is kept.
CREATE TABLE bot_conversations (
    platform        TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    service_url     TEXT NOT NULL,
    bot_id          TEXT NOT NULL,
    bot_name        TEXT NOT NULL DEFAULT '',
    tenant_id       TEXT NOT NULL DEFAULT '',
    latest_turn_id  TEXT NOT NULL DEFAULT '',
    updated_at      TIMESTAMP NOT NULL,
    PRIMARY KEY (platform, conversation_id)
);

CREATE TABLE bot_answers (
    platform        TEXT NOT NULL,
    message_id      TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    turn_id         TEXT NOT NULL,
    created_at      TIMESTAMP NOT NULL,
    PRIMARY KEY (platform, message_id)
);
CREATE INDEX bot_answers_created_at ON bot_answers (created_at);

-- Testers' display names as their chat platform gives them, for pages.
CREATE TABLE tester_names (
    tester_id    TEXT NOT NULL PRIMARY KEY,
    display_name TEXT NOT NULL,
    updated_at   TIMESTAMP NOT NULL
);

-- +goose Down
DROP TABLE tester_names;
DROP TABLE bot_answers;
DROP TABLE bot_conversations;
