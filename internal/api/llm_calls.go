package api

import (
	"net/http"

	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/server"
)

// LLMCallList is the answer to GET /llm-calls.
type LLMCallList struct {
	Calls []llm.Call `json:"llm_calls"`
}

// listLLMCalls serves the LLM calls hone recorded, newest first.
func (a *API) listLLMCalls(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := llm.CallFilter{Purpose: q.Get("purpose"), CauseID: q.Get("cause_id")}
	var err error
	if f.Limit, err = llmCallLimit.read(q); err != nil {
		return err
	}
	if f.Limit == 0 {
		f.Limit = llmCallLimit.def
	}
	list, err := a.LLMCalls.ListCalls(r.Context(), f)
	if err != nil {
		return err
	}
	if list == nil {
		list = []llm.Call{}
	}
	return server.WriteJSON(w, http.StatusOK, LLMCallList{Calls: list})
}
