package app

import (
	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/playground"
	"os"
)

// enableChat loads the prompt files and sets up the web chat over the
// configured LLM. A prompt file that cannot be read is an error; an LLM that
// is missing or set up wrongly leaves the chat saying what to set.
func (a *App) enableChat() error {
	prompts := make([]*playground.Prompt, 0, len(a.Config.Prompts))
	for _, path := range a.Config.Prompts {
		p, err := playground.LoadPrompt(path)
		if err != nil {
			return err
		}
		prompts = append(prompts, p)
	}
	a.prompts = prompts
	a.UI.EnableChat(a.LLM, prompts, a.LLMError)
	return nil
}

// Prompts are the system prompt files hone serves the chat with.
func (a *App) Prompts() []*playground.Prompt { return a.prompts }

// basePrompt is the learning loop's base prompt: the first prompt file's
// text, "" when hone has none.
func (a *App) basePrompt() (string, error) {
	if len(a.prompts) == 0 {
		return "", nil
	}
	text, _, err := a.prompts[0].Current()
	return text, err
}

// protectedFile reads the rules no learning may weaken from path; nil when
// there is no such file and the base prompt's marked lines count.
func protectedFile(path string) func() (string, error) {
	if path == "" {
		return nil
	}
	return func() (string, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", hone.Errorf(hone.EINVALID, "cannot read the protected rules file %s: %v", path, err)
		}
		return string(b), nil
	}
}

// openLLM makes the LLM client of the configuration, or notes why there is
// none: not configured, or configured wrongly.
func (a *App) openLLM() {
	a.LLMError = a.Config.LLM.Validate()
	if !a.Config.LLM.Configured() {
		return
	}
	if a.LLM, a.LLMError = llm.New(a.Config.LLM, a.DB.LLMCalls()); a.LLMError != nil {
		a.Log.Warn("the LLM is set up wrongly: the chat, follow-up questions and analyses go without it", "err", hone.ErrorMessage(a.LLMError))
	} else if a.Telemetry != nil {
		a.LLM.SetMeter(a.Telemetry)
	}
}
