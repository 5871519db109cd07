-- +goose Up
-- Chat platforms hone runs on as a bot: the next update each bot reads,
-- so that a restart resumes where it stopped and never handles an update
-- twice (Telegram's getUpdates offset).
CREATE TABLE bot_offsets (
    bot         TEXT NOT NULL PRIMARY KEY,
    next_update BIGINT NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE bot_offsets;
