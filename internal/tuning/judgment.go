package tuning

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Kinds of judgment of a turn.
const (
	// JudgmentRating is a 👍 or 👎: Value is "up" or "down".
	JudgmentRating = "rating"
	// JudgmentScore is a score of any other config: Config names it, Value
	// is a number, a category's label, true or false, or text.
	JudgmentScore = "score"
	// JudgmentCorrection is what a tester said should have been done
	// differently after a 👎: Text holds it.
	JudgmentCorrection = "correction"
)

// Judgment is one judgment of a turn, as the session page and the
// exports show it: who gave it, what it says, when.
type Judgment struct {
	// Kind is rating (👍/👎), score (a score of any other config) or
	// correction (what should have been done differently, after a 👎).
	Kind string `json:"kind" jsonschema:"enum=rating,enum=score,enum=correction"`
	// Config is the score config's name, for a rating (thumbs) or score.
	Config string `json:"config,omitempty"`
	// DataType is the config's data type: numeric, categorical, boolean
	// or text.
	DataType string `json:"data_type,omitempty"`
	// Value is a rating's up or down, or a score's value.
	Value any `json:"value,omitempty"`
	// Text is a correction's text, or a score's comment.
	Text string `json:"text,omitempty"`
	// Source is where a rating or score was given: chat, web, api, …
	Source string `json:"source,omitempty"`
	// Author is who judged: a tester, a reviewer, a workshop member or a
	// model.
	Author string `json:"author,omitempty"`
	// CreatedAt is when the judgment was given.
	CreatedAt time.Time `json:"created_at"`
}

// Judgments reads every judgment of the turns of a session.
type Judgments interface {
	// SessionJudgments returns the judgments of the session's turns by
	// turn id, each turn's oldest first.
	SessionJudgments(ctx context.Context, sessionID string) (map[string][]Judgment, error)
}

// ReadJudgments makes the session exports carry every judgment of each
// turn, read through j: columns after the spec's in the CSV, a list per
// turn in the JSON.
func (s *Service) ReadJudgments(j Judgments) { s.judgments = j }

// SessionJudgments returns the judgments of the session's turns by turn id;
// none when the service reads none.
func (s *Service) SessionJudgments(ctx context.Context, sessionID string) (map[string][]Judgment, error) {
	if s.judgments == nil {
		return map[string][]Judgment{}, nil
	}
	return s.judgments.SessionJudgments(ctx, sessionID)
}

// JudgmentColumns are the columns the session's CSV export adds after the
// spec's when it carries judgments.
var JudgmentColumns = []string{"Ratings", "Scores", "Corrections"}

// judgmentCells are a turn's JudgmentColumns: each judgment as
// "value by author at time", several joined by "; " (corrections by new
// lines).
func judgmentCells(list []Judgment) []string {
	var ratings, scores, corrections []string
	for _, j := range list {
		by := ""
		if j.Author != "" {
			by = " by " + j.Author
		}
		at := " at " + j.CreatedAt.UTC().Format(TimestampFormat)
		switch j.Kind {
		case JudgmentRating:
			ratings = append(ratings, fmt.Sprint(j.Value)+by+at)
		case JudgmentScore:
			s := j.Config + "=" + FormatValue(j.Value) + by + at
			if j.Text != "" {
				s += " (" + j.Text + ")"
			}
			scores = append(scores, s)
		case JudgmentCorrection:
			corrections = append(corrections, strings.TrimPrefix(by+at+": ", " ")+j.Text)
		}
	}
	return []string{strings.Join(ratings, "; "), strings.Join(scores, "; "), strings.Join(corrections, "\n")}
}

// FormatValue writes a score's value as people read it: a number without
// needless decimals, a label or text as it is.
func FormatValue(v any) string {
	switch v := v.(type) {
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}
