package llm

// RetryAfter exposes retryAfter to the tests.
var RetryAfter = retryAfter
