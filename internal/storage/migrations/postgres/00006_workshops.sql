-- +goose Up
-- Discovery workshops: members with roles, the traces they review, their
-- feedback with follow-up questions, analysis runs, templates and the draft
-- rubric. Tables of the workshop capability only.
CREATE TABLE workshops (
    id                     TEXT PRIMARY KEY,
    name                   TEXT NOT NULL,
    description            TEXT NOT NULL DEFAULT '',
    input_jsonpath         TEXT NOT NULL DEFAULT '',
    output_jsonpath        TEXT NOT NULL DEFAULT '',
    phase                  TEXT NOT NULL,
    discovery_started      BOOLEAN NOT NULL DEFAULT FALSE,
    discovery_randomize    BOOLEAN NOT NULL DEFAULT FALSE,
    trace_limit            INTEGER NOT NULL,
    assigned_count         INTEGER NOT NULL DEFAULT 0,
    model                  TEXT NOT NULL DEFAULT '',
    followup_system_prompt TEXT NOT NULL DEFAULT '',
    followup_user_prompt   TEXT NOT NULL DEFAULT '',
    token_budget           INTEGER NOT NULL,
    trace_count            INTEGER NOT NULL DEFAULT 0,
    created_at             TIMESTAMPTZ NOT NULL,
    updated_at             TIMESTAMPTZ NOT NULL
);

CREATE TABLE workshop_members (
    id          TEXT PRIMARY KEY,
    workshop_id TEXT NOT NULL REFERENCES workshops (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    email       TEXT NOT NULL DEFAULT '',
    role        TEXT NOT NULL,
    token_hash  TEXT NOT NULL UNIQUE,
    completed   INTEGER NOT NULL DEFAULT 0,
    created_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX workshop_members_workshop ON workshop_members (workshop_id, created_at);

-- A trace's JSON is JSON rather than JSONB: the raw trace is kept as imported.
CREATE TABLE workshop_traces (
    workshop_id TEXT NOT NULL REFERENCES workshops (id) ON DELETE CASCADE,
    id          TEXT NOT NULL,
    position    INTEGER NOT NULL,
    input       JSON NOT NULL,
    output      JSON NOT NULL,
    context     JSON,
    metadata    JSON,
    input_text  TEXT NOT NULL,
    output_text TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (workshop_id, id),
    UNIQUE (workshop_id, position)
);

CREATE TABLE discovery_feedback (
    id               TEXT PRIMARY KEY,
    workshop_id      TEXT NOT NULL REFERENCES workshops (id) ON DELETE CASCADE,
    trace_id         TEXT NOT NULL,
    user_id          TEXT NOT NULL REFERENCES workshop_members (id) ON DELETE CASCADE,
    feedback_label   TEXT NOT NULL,
    comment          TEXT NOT NULL,
    followup_qna     JSONB NOT NULL,
    answers          INTEGER NOT NULL DEFAULT 0,
    pending_number   INTEGER,
    pending_question TEXT,
    pending_fallback BOOLEAN NOT NULL DEFAULT FALSE,
    failed_attempts  INTEGER NOT NULL DEFAULT 0,
    created_at       TIMESTAMPTZ NOT NULL,
    updated_at       TIMESTAMPTZ NOT NULL,
    UNIQUE (workshop_id, trace_id, user_id),
    FOREIGN KEY (workshop_id, trace_id) REFERENCES workshop_traces (workshop_id, id) ON DELETE CASCADE
);
CREATE INDEX discovery_feedback_user ON discovery_feedback (workshop_id, user_id);

CREATE TABLE discovery_analysis (
    id               TEXT PRIMARY KEY,
    workshop_id      TEXT NOT NULL REFERENCES workshops (id) ON DELETE CASCADE,
    template_used    TEXT NOT NULL,
    model_requested  TEXT NOT NULL DEFAULT '',
    analysis_data    TEXT NOT NULL DEFAULT '',
    findings         JSONB NOT NULL,
    disagreements    JSONB NOT NULL,
    summary          TEXT NOT NULL DEFAULT '',
    participant_count INTEGER NOT NULL DEFAULT 0,
    model_used       TEXT NOT NULL DEFAULT '',
    status           TEXT NOT NULL,
    chunks_done      INTEGER NOT NULL DEFAULT 0,
    chunks_total     INTEGER NOT NULL DEFAULT 0,
    error            TEXT NOT NULL DEFAULT '',
    warnings         JSONB NOT NULL,
    dropped_evidence INTEGER NOT NULL DEFAULT 0,
    requested_by     TEXT NOT NULL DEFAULT '',
    attempts         INTEGER NOT NULL DEFAULT 0,
    heartbeat_at     TIMESTAMPTZ,
    created_at       TIMESTAMPTZ NOT NULL,
    updated_at       TIMESTAMPTZ NOT NULL
);
CREATE INDEX discovery_analysis_workshop ON discovery_analysis (workshop_id, created_at DESC);
CREATE INDEX discovery_analysis_status ON discovery_analysis (status, created_at);

CREATE TABLE analysis_templates (
    workshop_id TEXT NOT NULL REFERENCES workshops (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    title       TEXT NOT NULL,
    instruction TEXT NOT NULL,
    created_by  TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (workshop_id, name)
);

CREATE TABLE draft_rubric_items (
    id                 TEXT PRIMARY KEY,
    workshop_id        TEXT NOT NULL REFERENCES workshops (id) ON DELETE CASCADE,
    text               TEXT NOT NULL,
    source_type        TEXT NOT NULL,
    source_analysis_id TEXT REFERENCES discovery_analysis (id) ON DELETE SET NULL,
    source_trace_ids   JSONB NOT NULL,
    group_id           TEXT,
    group_name         TEXT,
    promoted_by        TEXT NOT NULL,
    promoted_at        TIMESTAMPTZ NOT NULL
);
CREATE INDEX draft_rubric_items_workshop ON draft_rubric_items (workshop_id, promoted_at);

-- +goose Down
DROP TABLE draft_rubric_items;
DROP TABLE analysis_templates;
DROP TABLE discovery_analysis;
DROP TABLE discovery_feedback;
DROP TABLE workshop_traces;
DROP TABLE workshop_members;
DROP TABLE workshops;
