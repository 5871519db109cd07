-- +goose Up
-- /healthz proves the database takes writes by updating this one row.
CREATE TABLE health (
    id         INTEGER PRIMARY KEY,
    checked_at TIMESTAMPTZ NOT NULL
);

-- Secrets hone keeps for itself, such as the key that signs download links
-- and sign-in cookies; rotating it revokes everything it signed.
CREATE TABLE secrets (
    name       TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);

-- One-time sign-in links (hone login-link): the SHA-256 of the token, never
-- the token itself.
CREATE TABLE signin_links (
    token_hash TEXT PRIMARY KEY,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    used_at    TIMESTAMPTZ
);

-- +goose Down
DROP TABLE signin_links;
DROP TABLE secrets;
DROP TABLE health;
