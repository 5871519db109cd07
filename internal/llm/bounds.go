package llm

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/honehq/hone"
)

// Every call carries a bound on the tokens the model may generate, so that
// a model that never closes its answer (a JSON object, say) stops there
// instead of running to the end of its context window, and at a paid
// provider to the cost of it.

// Purposes lists the purposes hone calls the LLM for; HONE_LLM_MAX_TOKENS_<PURPOSE>
// accepts these.
var Purposes = []string{PurposeChat, PurposeFollowUp, PurposeAnalysis, PurposeJudge, PurposeLearning}

// DefaultMaxTokens bounds the answers of a purpose without a default of its
// own (see MaxTokensDefault).
const DefaultMaxTokens = 4096

// maxTokensDefaults sizes each purpose's bound for what it asks for, with room
// for models that reason before they answer: their reasoning counts too.
var maxTokensDefaults = map[string]int{
	// The model under test answering a tester: a chat answer, which testers
	// read and judge, rarely needs more than a page.
	PurposeChat: 4096,
	// One follow-up question of a sentence or two.
	PurposeFollowUp: 1024,
	// A score and a short reason.
	PurposeJudge: 1024,
	// A workshop analysis (findings and an analysis of every disagreement)
	// or a rubric grouping of every criterion: the longest answers hone asks for.
	PurposeAnalysis: 8192,
	// A synthesis of learning statements with their sources, or a short
	// review or relatedness verdict.
	PurposeLearning: 4096,
}

// MaxTokensDefault returns the bound of purpose when no setting gives one.
func MaxTokensDefault(purpose string) int {
	if n, ok := maxTokensDefaults[purpose]; ok {
		return n
	}
	return DefaultMaxTokens
}

// maxTokens returns the bound of req: Request.MaxTokens, then
// PurposeMaxTokens[Purpose], then MaxTokens, then the purpose's default.
func (c Config) maxTokens(req Request) int {
	if req.MaxTokens != nil {
		return *req.MaxTokens
	}
	if n := c.PurposeMaxTokens[req.Purpose]; n > 0 {
		return n
	}
	if c.MaxTokens > 0 {
		return c.MaxTokens
	}
	return MaxTokensDefault(req.Purpose)
}

// boundFields are the request fields that carry the bound. OpenAI deprecated
// max_tokens for max_completion_tokens, which its reasoning models require,
// and refuses a request that sets both. The servers people run themselves
// read max_tokens: Ollama and LM Studio only that, llama.cpp's server only
// that until February 2026, vLLM either. So the bound goes out as
// max_completion_tokens to OpenAI and Azure OpenAI, as max_tokens to any
// other server, and never as both; a server that refuses the field it got
// is sent the other one from then on (see boundFieldRefused).
const (
	fieldMaxTokens           = "max_tokens"
	fieldMaxCompletionTokens = "max_completion_tokens"
)

// readsMaxCompletionTokens reports whether the API at baseURL is OpenAI's
// or Azure OpenAI's, which take max_completion_tokens.
func readsMaxCompletionTokens(baseURL string) bool {
	u, err := url.Parse(baseURL)
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	return host == "api.openai.com" || strings.HasSuffix(host, ".openai.azure.com") ||
		strings.HasSuffix(host, ".cognitiveservices.azure.com") || strings.HasSuffix(host, ".services.ai.azure.com")
}

// boundFieldRefused reports whether err is the provider refusing the field
// the bound went out in, as OpenAI's reasoning models refuse max_tokens
// ("Unsupported parameter: 'max_tokens' … Use 'max_completion_tokens'
// instead.") and older Azure OpenAI API versions max_completion_tokens
// ("Unrecognized request argument supplied: max_completion_tokens").
func boundFieldRefused(err error, field string) bool {
	var ce *callError
	if !errors.As(err, &ce) || (ce.status != 400 && ce.status != 422) {
		return false
	}
	msg := strings.ToLower(providerMessage([]byte(ce.body)))
	if msg == "" {
		msg = strings.ToLower(ce.body)
	}
	if !strings.Contains(msg, field) {
		return false
	}
	for _, refusal := range []string{"unsupported", "not supported", "unrecognized", "unknown", "not permitted", "not allowed", "extra inputs"} {
		if strings.Contains(msg, refusal) {
			return true
		}
	}
	return false
}

// keepsCutOff reports whether an answer cut off at its bound is still
// returned as an answer: only the chat's, which is the model under test's
// own and is shown to the tester (marked, see Response.CutOff). Any other
// cut-off answer is incomplete for the code that asked for it, and a typed
// one is never valid.
func keepsCutOff(req Request, format *responseFormat) bool {
	return format == nil && req.Purpose == PurposeChat
}

// MaxTokensVariable names the environment variable that bounds the answers
// of purpose: HONE_LLM_MAX_TOKENS_CHAT for PurposeChat.
func MaxTokensVariable(purpose string) string {
	return purposeEnv(EnvMaxTokensPrefix, purpose)
}

// maxTokensSetting names the variable that sets the bound of req, or ""
// when the code set it (Request.MaxTokens).
func maxTokensSetting(req Request) string {
	if req.MaxTokens != nil {
		return ""
	}
	return MaxTokensVariable(req.Purpose)
}

// boundHint adds what to change to the message of a provider refusing a
// request for its size: a bound larger than the model allows, or a prompt
// and bound that overflow its context window.
func (c *Client) boundHint(err error, req Request, bound int) error {
	var ce *callError
	if !errors.As(err, &ce) || (ce.status != 400 && ce.status != 413 && ce.status != 422) {
		return err
	}
	body := strings.ToLower(ce.body)
	if !strings.Contains(body, fieldMaxTokens) && !strings.Contains(body, fieldMaxCompletionTokens) && !strings.Contains(body, "context") {
		return err
	}
	hint := fmt.Sprintf(" hone asked for at most %d tokens", bound)
	if name := maxTokensSetting(req); name != "" {
		hint += fmt.Sprintf(": if the model allows fewer, or its context window cannot hold the prompt and that many, set %s lower.", name)
	} else {
		hint += "."
	}
	herr := *ce.herr
	herr.Message += hint
	out := *ce
	out.herr = &herr
	return &out
}

// cutOff is the error for an answer cut off at its bound.
func cutOff(req Request, resp *Response, bound int) *OutputError {
	return &OutputError{Purpose: req.Purpose, Raw: resp.Content, MaxTokens: bound, setting: maxTokensSetting(req),
		Problem: fmt.Sprintf("the answer was cut off at %d tokens (finish_reason \"length\")", bound)}
}

// checkBound returns an EINVALID error when req sets its bound wrongly.
func checkBound(req Request) error {
	if req.MaxTokens != nil && *req.MaxTokens <= 0 {
		return hone.Errorf(hone.EINVALID, "An LLM request's MaxTokens must be positive, not %d.", *req.MaxTokens)
	}
	for _, k := range []string{fieldMaxTokens, fieldMaxCompletionTokens} {
		if _, ok := req.Params[k]; ok {
			return hone.Errorf(hone.EINVALID, "Set an LLM request's bound with MaxTokens, not Params[%q]: hone sends it in the field the provider reads.", k)
		}
	}
	return nil
}
