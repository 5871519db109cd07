-- +goose Up
-- The sessions list counts each session's 👍 and 👎 and filters on a 👎:
-- the ratings by session.
CREATE INDEX turn_feedback_session ON turn_feedback (session_id, rating);

-- +goose Down
DROP INDEX turn_feedback_session;
