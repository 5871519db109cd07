// Package suggest records how people respond to the suggestions an LLM
// application shows them (autocomplete, next commands, reply suggestions),
// as hone's suggestion-tracking spec describes: what context went to the
// model, what it suggested, which suggestions the person looked at, and
// what they did in the end.
//
// An application keeps one Tracker per session. It calls Fetching when it
// asks the model, Fetched when the suggestions arrive (the first counts as
// viewed), Next and Prev as the person cycles through them, and Submit with
// what the person finally entered: Submit classifies the input against the
// suggestions (exact, partial, prefix or none, in the spec's order),
// finalises the record and hands it to the Tracker's Sink without waiting.
//
// Two sinks ship with it. The HTTP sink batches records to a hone server
// (POST /api/v1/suggestions), retrying with backoff and buffering while it
// is down. The JSONL sink appends each record as one self-contained line to
// <root>/<server>/<session>/suggestion_history.jsonl (the names escaped
// into folder names by PathPart) from a background writer; ReadJSONL and
// Walk read such files back, skipping a torn last line with a warning.
// Both sinks redact before a record leaves the process (DefaultRedactor:
// API keys). Recording is opt-in: EnabledFromEnv reads
// HONE_SUGGESTION_HISTORY.
package suggest
