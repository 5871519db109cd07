package api

import (
	"encoding/json"
	"math"
	"net/http"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/quality"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/scoring"
	"github.com/honehq/hone/internal/server"
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
	Metrics quality.Result `json:"metrics"`
}

// ScoresInput is the body of POST /turns/{id}/scores.
type ScoresInput struct {
	// Scores are numbers so that 4.0 and 4e0, which JSON counts as the whole
	// number 4, are read as 4; any other fraction is refused.
	Scores map[string]float64 `json:"scores"`
}

// wholeScores returns the scores as whole numbers, or an error naming the
// first that is not one.
func wholeScores(in map[string]float64) (map[string]int, error) {
	out := make(map[string]int, len(in))
	for k, v := range in {
		if v != math.Trunc(v) || math.Abs(v) > 1e9 {
			return nil, hone.FieldError("scores", "%s: %v is not a whole number from %d to %d", k, v, quality.ScoreMin, quality.ScoreMax)
		}
		out[k] = int(v)
	}
	return out, nil
}

// TurnScores is a turn's human scores and composites, the answer to
// POST /turns/{id}/scores.
type TurnScores = scoring.TurnScores

func (a *API) score(w http.ResponseWriter, r *http.Request) error {
	var in ScoreInput
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	if string(in.SearchResults) == "null" {
		in.SearchResults = nil
	}
	if err := in.validate(); err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, ScoreResult{Metrics: a.Scoring.Evaluate(quality.Input{
		Query: in.Query, Response: in.Response, SearchResults: in.SearchResults, AvgSimilarity: in.AvgSimilarity,
		ProcessingTimeMS: in.ProcessingTimeMS, IsFirstResponse: in.IsFirstResponse})})
}

func (a *API) scoreTurn(w http.ResponseWriter, r *http.Request) error {
	var in ScoresInput
	if err := server.DecodeJSON(r, &in); err != nil {
		return err
	}
	scores, err := wholeScores(in.Scores)
	if err != nil {
		return err
	}
	t, err := a.Scoring.ScoreTurn(r.Context(), scoring.TurnRef{TurnID: r.PathValue("id")}, scores, scoring.Judge{Source: score.SourceAPI})
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, t)
}

func (a *API) sessionMetrics(w http.ResponseWriter, r *http.Request) error {
	rep, err := a.Scoring.SessionReport(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, rep)
}

func (a *API) compareVersions(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	c, err := a.Scoring.Compare(r.Context(), q.Get("a"), q.Get("b"))
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, c)
}

func (a *API) regressions(w http.ResponseWriter, r *http.Request) error {
	rep, err := a.Scoring.Regressions(r.Context())
	if err != nil {
		return err
	}
	return server.WriteJSON(w, http.StatusOK, rep)
}

// maxScoreText is the longest query or response POST /score takes, in characters.
const maxScoreText = 1 << 20

// validate reports the first field of a score request that is missing or malformed.
func (in *ScoreInput) validate() error {
	switch {
	case strings.TrimSpace(in.Response) == "":
		return hone.FieldError("response", "response is required")
	case hone.Chars(in.Response) > maxScoreText:
		return hone.FieldError("response", "response is longer than %d characters", maxScoreText)
	case hone.Chars(in.Query) > maxScoreText:
		return hone.FieldError("query", "query is longer than %d characters", maxScoreText)
	case in.ProcessingTimeMS != nil && (*in.ProcessingTimeMS < 0 || math.IsInf(*in.ProcessingTimeMS, 0)):
		return hone.FieldError("processing_time_ms", "processing_time_ms must be 0 or more, got %v", *in.ProcessingTimeMS)
	case in.AvgSimilarity != nil && (*in.AvgSimilarity < 0 || *in.AvgSimilarity > 1):
		return hone.FieldError("avg_similarity", "avg_similarity must be between 0 and 1, got %v", *in.AvgSimilarity)
	}
	return nil
}
