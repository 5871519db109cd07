package api

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/metrics"
	"github.com/honehq/hone/internal/scoring"
)

// ScoreInput is the body of POST /score: one response to score.
type ScoreInput struct {
	Query            string          `json:"query"`
	Response         string          `json:"response"`
	SearchResults    json.RawMessage `json:"search_results,omitempty"`
	AvgSimilarity    *float64        `json:"avg_similarity,omitempty"`
	ProcessingTimeMS *float64        `json:"processing_time_ms,omitempty"`
	IsFirstResponse  bool            `json:"is_first_response,omitempty"`
}

// ScoreResult is the answer to POST /score.
type ScoreResult struct {
	Metrics metrics.Result `json:"metrics"`
}

// ScoresInput is the body of POST /turns/{id}/scores.
type ScoresInput struct {
	Scores map[string]int `json:"scores"`
}

// TurnScores is a turn's human scores and composites, the answer to
// POST /turns/{id}/scores.
type TurnScores struct {
	TurnID     string         `json:"turn_id"`
	SessionID  string         `json:"session_id"`
	TurnNumber int            `json:"turn_number"`
	Scores     map[string]int `json:"scores"`
	Objective  *float64       `json:"objective_quality_score"`
	Subjective *float64       `json:"subjective_quality_score"`
	Overall    *float64       `json:"overall_quality_score"`
}

// RegisterMetrics serves response metrics: scoring a response, human scores
// for a turn, and the comparisons of sessions and prompt versions.
func (a *API) RegisterMetrics(s *scoring.Service) {
	a.Handle("POST "+Prefix+"/score", func(w http.ResponseWriter, r *http.Request) {
		var in ScoreInput
		if err := decode(r, &in); err != nil {
			writeError(w, r, a.Logger, err)
			return
		}
		in.SearchResults = nullAsAbsent(in.SearchResults)
		if err := in.validate(); err != nil {
			writeError(w, r, a.Logger, err)
			return
		}
		writeJSON(w, http.StatusOK, ScoreResult{Metrics: s.Evaluate(metrics.Input{
			Query: in.Query, Response: in.Response, SearchResults: in.SearchResults, AvgSimilarity: in.AvgSimilarity,
			ProcessingTimeMS: in.ProcessingTimeMS, IsFirstResponse: in.IsFirstResponse})})
	})
	a.Handle("POST "+Prefix+"/turns/{id}/scores", func(w http.ResponseWriter, r *http.Request) {
		var in ScoresInput
		if err := decode(r, &in); err != nil {
			writeError(w, r, a.Logger, err)
			return
		}
		t, err := s.ScoreTurn(r.Context(), scoring.TurnRef{TurnID: r.PathValue("id")}, in.Scores)
		if err != nil {
			writeError(w, r, a.Logger, err)
			return
		}
		writeJSON(w, http.StatusOK, TurnScores{TurnID: t.ID, SessionID: t.SessionID, TurnNumber: t.Number,
			Scores: t.Scores, Objective: t.ObjectiveScore, Subjective: t.SubjectiveScore, Overall: t.OverallScore})
	})
	a.Handle("GET "+Prefix+"/metrics/sessions/{id}", func(w http.ResponseWriter, r *http.Request) {
		rep, err := s.SessionReport(r.Context(), r.PathValue("id"))
		if err != nil {
			writeError(w, r, a.Logger, err)
			return
		}
		writeJSON(w, http.StatusOK, rep)
	})
	a.Handle("GET "+Prefix+"/metrics/compare", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		c, err := s.Compare(r.Context(), q.Get("a"), q.Get("b"))
		if err != nil {
			writeError(w, r, a.Logger, err)
			return
		}
		writeJSON(w, http.StatusOK, c)
	})
	a.Handle("GET "+Prefix+"/metrics/regressions", func(w http.ResponseWriter, r *http.Request) {
		rep, err := s.Regressions(r.Context())
		if err != nil {
			writeError(w, r, a.Logger, err)
			return
		}
		writeJSON(w, http.StatusOK, rep)
	})
}

// validate reports the first field of a score request that is missing or malformed.
func (in *ScoreInput) validate() error {
	switch {
	case strings.TrimSpace(in.Response) == "":
		return hone.FieldError("response", "response is required")
	case in.ProcessingTimeMS != nil && *in.ProcessingTimeMS < 0:
		return hone.FieldError("processing_time_ms", "processing_time_ms must be 0 or more, got %v", *in.ProcessingTimeMS)
	case in.AvgSimilarity != nil && (*in.AvgSimilarity < 0 || *in.AvgSimilarity > 1):
		return hone.FieldError("avg_similarity", "avg_similarity must be between 0 and 1, got %v", *in.AvgSimilarity)
	}
	return nil
}
