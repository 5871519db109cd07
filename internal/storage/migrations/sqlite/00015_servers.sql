-- +goose Up
-- Where each hone server on this database was last reached from, so that
-- commands run elsewhere (hone login-link, hone workshop) build links to the
-- server that runs instead of guessing its address.
CREATE TABLE servers (
    url        TEXT NOT NULL PRIMARY KEY,
    started_at TIMESTAMP NOT NULL
);

-- +goose Down
DROP TABLE servers;
