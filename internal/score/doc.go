// Package score is hone's one place for judgments: typed score
// configurations (numeric, categorical, boolean, text), and the scores that
// people, LLMs and metrics give captured turns and workshop traces under
// them. Every judgment hone takes (!score, 👍/👎, a workshop's GOOD/BAD
// label, a score sent to the API) is a Score recorded through the Service;
// the capabilities that keep figures derived from scores (composites,
// approval, agreement) follow the changes in the same transaction.
package score
