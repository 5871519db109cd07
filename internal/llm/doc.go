// Package llm is hone's one LLM layer: a client for any OpenAI-compatible
// Chat Completions endpoint (OpenAI, Azure OpenAI, Databricks, Ollama, vLLM,
// llama.cpp), configured by HONE_LLM_BASE_URL, HONE_LLM_API_KEY and
// HONE_LLM_MODEL (see ConfigHelp).
//
// Client.Complete and Client.Stream send chat messages; Generate asks for a
// typed, schema-validated answer. Every call carries a bound on the answer's
// tokens, per purpose (HONE_LLM_MAX_TOKENS, HONE_LLM_MAX_TOKENS_<PURPOSE>);
// an answer cut off at it is an *OutputError, except a chat answer, which
// comes back with Response.CutOff set. Transient failures (HTTP 408, 429, 5xx,
// network errors) are retried with exponential backoff and jitter, honouring
// Retry-After; a timed-out attempt is not retried. Errors are *hone.Error
// values that tell the user which setting to check, and never contain the
// API key. Every call is handed to a Recorder as a Call whose request and
// response marshal to the llm_request and llm_response of hone's
// suggestion-tracking spec.
package llm
