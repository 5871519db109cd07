-- +goose Up
-- Idempotent turn recording: the client's Idempotency-Key (or its own turn
-- id) and a fingerprint of the turn's content, to recognise a retry. And a
-- revision of each turn's human scores, so that a score change computed from
-- stale scores is refused rather than lost.
ALTER TABLE turns
    ADD COLUMN idempotency_key TEXT,
    ADD COLUMN fingerprint     TEXT,
    ADD COLUMN scores_revision BIGINT NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX turns_idempotency_key ON turns (idempotency_key) WHERE idempotency_key IS NOT NULL;

-- +goose Down
DROP INDEX turns_idempotency_key;
ALTER TABLE turns
    DROP COLUMN scores_revision,
    DROP COLUMN fingerprint,
    DROP COLUMN idempotency_key;
