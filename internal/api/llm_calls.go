package api

import (
	"net/http"

	"github.com/honehq/hone/internal/llm"
)

// LLMCallList is the answer to GET /llm-calls.
type LLMCallList struct {
	Calls []llm.Call `json:"llm_calls"`
}

// RegisterLLMCalls serves GET /llm-calls, the LLM calls recorded in store.
func (a *API) RegisterLLMCalls(store llm.CallStore) {
	a.Handle("GET "+Prefix+"/llm-calls", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		f := llm.CallFilter{Purpose: q.Get("purpose"), CauseID: q.Get("cause_id")}
		var err error
		if f.Limit, err = intParam(q.Get("limit"), "limit", 1, 1000); err != nil {
			writeError(w, r, a.Logger, err)
			return
		}
		if f.Limit == 0 {
			f.Limit = 50
		}
		list, err := store.ListCalls(r.Context(), f)
		if err != nil {
			writeError(w, r, a.Logger, err)
			return
		}
		if list == nil {
			list = []llm.Call{}
		}
		writeJSON(w, http.StatusOK, LLMCallList{Calls: list})
	})
}
