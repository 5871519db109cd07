-- +goose Up
-- The agreement figures read every label of a workshop; this index holds
-- them all, so that they are read without visiting the feedback rows.
CREATE INDEX discovery_feedback_labels ON discovery_feedback (workshop_id, trace_id, user_id, feedback_label);

-- +goose Down
DROP INDEX discovery_feedback_labels;
