-- +goose Up
-- Typed score configs and the scores given under them: one table for every
-- judgment of a captured turn or a workshop's trace, by a person, an LLM or
-- a metric. A score judges a turn (turn_id) or a trace (workshop_id and
-- trace_id); its value is kept as a number (numeric, boolean as 1 or 0, a
-- category's number) and as text (a category's label, a text value). The
-- prompt version of a judged turn is kept on its score when it is written,
-- so that reading scores joins no other capability's tables. Tables of the
-- score capability only.
CREATE TABLE score_configs (
    id          TEXT NOT NULL PRIMARY KEY,
    name        TEXT NOT NULL,
    data_type   TEXT NOT NULL,
    min_value   REAL,
    max_value   REAL,
    step        REAL,
    categories  TEXT NOT NULL DEFAULT '[]',
    description TEXT NOT NULL DEFAULT '',
    archived    BOOLEAN NOT NULL DEFAULT FALSE,
    built_in    BOOLEAN NOT NULL DEFAULT FALSE,
    version     INTEGER NOT NULL DEFAULT 1,
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL
);
-- Names are unique among the configs that are not archived.
CREATE UNIQUE INDEX score_configs_name ON score_configs (name) WHERE NOT archived;

CREATE TABLE scores (
    id             TEXT NOT NULL PRIMARY KEY,
    turn_id        TEXT,
    workshop_id    TEXT,
    trace_id       TEXT,
    config_id      TEXT NOT NULL REFERENCES score_configs (id),
    value_number   REAL,
    value_text     TEXT,
    comment        TEXT NOT NULL DEFAULT '',
    source         TEXT NOT NULL,
    author         TEXT NOT NULL DEFAULT '',
    prompt_version TEXT NOT NULL DEFAULT '',
    fingerprint    TEXT NOT NULL,
    created_at     TIMESTAMP NOT NULL
);
CREATE INDEX scores_turn ON scores (turn_id, config_id, created_at) WHERE turn_id IS NOT NULL;
CREATE INDEX scores_trace ON scores (workshop_id, trace_id, config_id, created_at) WHERE workshop_id IS NOT NULL;
CREATE INDEX scores_config ON scores (config_id, created_at);
CREATE INDEX scores_created ON scores (created_at);

-- The built-in configs: the five !score dimensions of the metrics spec
-- (numeric, 1 to 5 in whole steps), thumbs (👍/👎) and workshop_label
-- (a workshop member's GOOD or BAD).
INSERT INTO score_configs (id, name, data_type, min_value, max_value, step, categories, description, built_in, created_at, updated_at) VALUES
    ('builtin-professionalism', 'professionalism', 'numeric', 1, 5, 1, '[]', 'How professional is the tone? 1 unprofessional, 3 adequate, 5 exemplary.', TRUE, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP),
    ('builtin-empathy', 'empathy', 'numeric', 1, 5, 1, '[]', 'How empathetic is the response? 1 cold, 3 neutral, 5 highly empathetic.', TRUE, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP),
    ('builtin-clarity', 'clarity', 'numeric', 1, 5, 1, '[]', 'How clear and understandable is the response? 1 confusing, 3 clear, 5 crystal clear.', TRUE, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP),
    ('builtin-actionability', 'actionability', 'numeric', 1, 5, 1, '[]', 'How actionable are the next steps? 1 vague, 3 specific, 5 step by step.', TRUE, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP),
    ('builtin-compliance', 'compliance', 'numeric', 1, 5, 1, '[]', 'How well does it handle compliance (FMLA, ADA, etc.)? 1 risky, 3 safe, 5 excellent escalation.', TRUE, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP),
    ('builtin-thumbs', 'thumbs', 'boolean', NULL, NULL, NULL, '[]', '👍 (true) or 👎 (false) on a response.', TRUE, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP),
    ('builtin-workshop_label', 'workshop_label', 'categorical', NULL, NULL, NULL, '[{"label":"GOOD","value":1},{"label":"BAD","value":0}]', 'A workshop member''s review of a trace: GOOD or BAD.', TRUE, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP);

-- +goose Down
DROP TABLE scores;
DROP TABLE score_configs;
