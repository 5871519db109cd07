package app

import (
	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/gateway"
	"github.com/honehq/hone/internal/llm"
)

// enableChat loads the prompt files and sets up the web chat over the
// configured LLM. A prompt file that cannot be read is an error; an LLM that
// is missing or set up wrongly leaves the chat saying what to set.
func (a *App) enableChat() error {
	prompts := make([]*gateway.Prompt, 0, len(a.Config.Prompts))
	for _, path := range a.Config.Prompts {
		p, err := gateway.LoadPrompt(path)
		if err != nil {
			return err
		}
		prompts = append(prompts, p)
	}
	a.UI.EnableChat(a.LLM, prompts, a.LLMError)
	return nil
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
	}
}
