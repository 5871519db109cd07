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
    min_value   DOUBLE PRECISION,
    max_value   DOUBLE PRECISION,
    step        DOUBLE PRECISION,
    categories  TEXT NOT NULL DEFAULT '[]',
    description TEXT NOT NULL DEFAULT '',
    archived    BOOLEAN NOT NULL DEFAULT FALSE,
    built_in    BOOLEAN NOT NULL DEFAULT FALSE,
    version     INTEGER NOT NULL DEFAULT 1,
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);
-- Names are unique among the configs that are not archived.
CREATE UNIQUE INDEX score_configs_name ON score_configs (name) WHERE NOT archived;

CREATE TABLE scores (
    id             TEXT NOT NULL PRIMARY KEY,
    turn_id        TEXT,
    workshop_id    TEXT,
    trace_id       TEXT,
    config_id      TEXT NOT NULL REFERENCES score_configs (id),
    value_number   DOUBLE PRECISION,
    value_text     TEXT,
    comment        TEXT NOT NULL DEFAULT '',
    source         TEXT NOT NULL,
    author         TEXT NOT NULL DEFAULT '',
    prompt_version TEXT NOT NULL DEFAULT '',
    fingerprint    TEXT NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL
);
CREATE INDEX scores_turn ON scores (turn_id, config_id, created_at) WHERE turn_id IS NOT NULL;
CREATE INDEX scores_trace ON scores (workshop_id, trace_id, config_id, created_at) WHERE workshop_id IS NOT NULL;
CREATE INDEX scores_config ON scores (config_id, created_at);
CREATE INDEX scores_created ON scores (created_at);

-- The built-in configs: the five !score dimensions of the metrics spec
-- (numeric, 1 to 5 in whole steps), thumbs (👍/👎) and workshop_label
-- (a workshop member's GOOD or BAD).
INSERT INTO score_configs (id, name, data_type, min_value, max_value, step, categories, description, built_in, created_at, updated_at) VALUES
    ('builtin-professionalism', 'professionalism', 'numeric', 1, 5, 1, '[]', 'How professional is the tone? 1 unprofessional, 3 adequate, 5 exemplary.', TRUE, now(), now()),
    ('builtin-empathy', 'empathy', 'numeric', 1, 5, 1, '[]', 'How empathetic is the response? 1 cold, 3 neutral, 5 highly empathetic.', TRUE, now(), now()),
    ('builtin-clarity', 'clarity', 'numeric', 1, 5, 1, '[]', 'How clear and understandable is the response? 1 confusing, 3 clear, 5 crystal clear.', TRUE, now(), now()),
    ('builtin-actionability', 'actionability', 'numeric', 1, 5, 1, '[]', 'How actionable are the next steps? 1 vague, 3 specific, 5 step by step.', TRUE, now(), now()),
    ('builtin-compliance', 'compliance', 'numeric', 1, 5, 1, '[]', 'How well does it handle compliance (FMLA, ADA, etc.)? 1 risky, 3 safe, 5 excellent escalation.', TRUE, now(), now()),
    ('builtin-thumbs', 'thumbs', 'boolean', NULL, NULL, NULL, '[]', '👍 (true) or 👎 (false) on a response.', TRUE, now(), now()),
    ('builtin-workshop_label', 'workshop_label', 'categorical', NULL, NULL, NULL, '[{"label":"GOOD","value":1},{"label":"BAD","value":0}]', 'A workshop member''s review of a trace: GOOD or BAD.', TRUE, now(), now());

-- The judgments made before scores become scores, nothing lost: each turn's
-- !score values (its 1 to 5 map, one score a dimension, at the turn's time,
-- source import), each 👍/👎 of turn_feedback (the tester's current rating,
-- at its time, source import) and each label of discovery_feedback (with its
-- comment, source workshop, by the member). The map and composites on
-- turns, turn_feedback and discovery_feedback stay as they are: what
-- scoring, the learning loop and the workshops derive from the scores (the
-- latest score of a dimension of a turn, of a tester's thumbs of a turn, of
-- a member's label of a trace), kept in the transaction of each change of
-- the scores. A dimension a metric set of its own named gets a numeric
-- config.

INSERT INTO score_configs (id, name, data_type, min_value, max_value, step, categories, description, built_in, created_at, updated_at)
SELECT DISTINCT 'migrated-' || j.key, j.key, 'numeric', 1, 5, 1, '[]', 'A !score dimension of the metric set.', FALSE, now(), now()
FROM turns t CROSS JOIN LATERAL jsonb_each_text(t.scores) AS j
WHERE t.scores IS NOT NULL AND jsonb_typeof(t.scores) = 'object' AND j.key NOT IN (SELECT name FROM score_configs);

INSERT INTO scores (id, turn_id, config_id, value_number, comment, source, author, prompt_version, fingerprint, created_at)
SELECT 'score-' || t.id || '-' || j.key, t.id, c.id, CAST(j.value AS DOUBLE PRECISION), '', 'import', '', s.master_prompt_version, '', t.created_at
FROM turns t JOIN sessions s ON s.id = t.session_id CROSS JOIN LATERAL jsonb_each_text(t.scores) AS j
    JOIN score_configs c ON c.name = j.key AND NOT c.archived
WHERE t.scores IS NOT NULL AND jsonb_typeof(t.scores) = 'object';

INSERT INTO scores (id, turn_id, config_id, value_number, comment, source, author, prompt_version, fingerprint, created_at)
SELECT 'rating-' || f.id, f.turn_id, 'builtin-thumbs', CASE WHEN f.rating = 'up' THEN 1 ELSE 0 END, '', 'import', f.tester_id,
    s.master_prompt_version, '', f.updated_at
FROM turn_feedback f JOIN turns t ON t.id = f.turn_id JOIN sessions s ON s.id = t.session_id;

INSERT INTO scores (id, workshop_id, trace_id, config_id, value_number, value_text, comment, source, author, fingerprint, created_at)
SELECT 'label-' || f.id, f.workshop_id, f.trace_id, 'builtin-workshop_label', CASE WHEN f.feedback_label = 'good' THEN 1 ELSE 0 END,
    CASE WHEN f.feedback_label = 'good' THEN 'GOOD' ELSE 'BAD' END, f.comment, 'workshop', f.user_id, '', f.updated_at
FROM discovery_feedback f;

-- +goose Down
DROP TABLE scores;
DROP TABLE score_configs;
