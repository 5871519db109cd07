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
	var client *llm.Client
	llmErr := a.Config.LLM.Validate()
	if a.Config.LLM.Configured() {
		if client, llmErr = llm.New(a.Config.LLM, a.DB.LLMCalls()); llmErr != nil {
			a.Log.Warn("the chat at /chat is off: the LLM is set up wrongly", "err", hone.ErrorMessage(llmErr))
		}
	}
	a.UI.EnableChat(client, prompts, llmErr)
	return nil
}
