package llm

// RetryAfter exposes retryAfter to the tests.
var RetryAfter = retryAfter

// ReadsMaxCompletionTokens exposes readsMaxCompletionTokens to the tests.
var ReadsMaxCompletionTokens = readsMaxCompletionTokens

// UseMaxCompletionTokens makes c send its bound as max_completion_tokens, as
// it does for OpenAI.
func UseMaxCompletionTokens(c *Client) { c.completionTokens.Store(true) }
