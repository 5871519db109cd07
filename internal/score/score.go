package score

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/honehq/hone"
)

// Sources of a score: where the judgment was made.
const (
	SourceChat     = "chat"
	SourceWeb      = "web"
	SourceAPI      = "api"
	SourceWorkshop = "workshop"
	SourceMetric   = "metric"
	SourceLLM      = "llm"
	SourceImport   = "import"
	SourceOTLP     = "otlp"
)

// Sources lists every source, in the order the API documents them.
var Sources = []string{SourceChat, SourceWeb, SourceAPI, SourceWorkshop, SourceMetric, SourceLLM, SourceImport, SourceOTLP}

// Limits of a score.
const (
	MaxIDLength     = 128
	MaxTargetLength = 200
	MaxAuthorLength = 200
)

// IDPattern is the form of a score id a client gives, as a regular expression.
const IDPattern = `^[A-Za-z0-9][A-Za-z0-9._:-]*$`

var idPattern = regexp.MustCompile(IDPattern)

// idLength is the length of the ids hone makes.
const idLength = 12

// Score is one judgment of a captured turn or of a workshop's trace, under
// a config.
type Score struct {
	ID string `json:"id"`
	// TurnID names the turn judged; WorkshopID and TraceID the trace
	// judged instead.
	TurnID     string `json:"turn_id,omitempty"`
	WorkshopID string `json:"workshop_id,omitempty"`
	TraceID    string `json:"trace_id,omitempty"`
	// ConfigID is the config's id, Config its name.
	ConfigID string `json:"config_id"`
	Config   string `json:"config"`
	DataType string `json:"data_type"`
	// Value is a number, a category label, true or false, or text, as the
	// config's data type says.
	Value   any    `json:"value"`
	Comment string `json:"comment,omitempty"`
	Source  string `json:"source"`
	// Author is who judged: a tester, a workshop member or a model.
	Author string `json:"author,omitempty"`
	// PromptVersion is the prompt version of the turn judged, when it had
	// one, as it was when the score was recorded.
	PromptVersion string    `json:"prompt_version,omitempty"`
	CreatedAt     time.Time `json:"created_at"`

	// Number is the number the value stands for: the value of a numeric
	// score, 1 or 0 for a boolean one, a category's number.
	Number *float64 `json:"-"`
	// Text is a category's label or a text value.
	Text *string `json:"-"`
	// Fingerprint identifies the score's content, so that the same score
	// sent again under its id is recognised.
	Fingerprint string `json:"-"`
}

// Input is a score as a client gives it, the body of POST /scores.
type Input struct {
	// ID, when the client gives one, becomes the score's id: the same
	// score sent again is recorded once.
	ID         string `json:"id,omitempty"`
	TurnID     string `json:"turn_id,omitempty"`
	WorkshopID string `json:"workshop_id,omitempty"`
	TraceID    string `json:"trace_id,omitempty"`
	// Config names the config: a name of a config that is not archived,
	// or an id.
	Config  string          `json:"config"`
	Value   json.RawMessage `json:"value"`
	Comment string          `json:"comment,omitempty"`
	// Source is where the judgment was made; api when left out.
	Source string `json:"source,omitempty"`
	Author string `json:"author,omitempty"`
}

// clean checks the parts of in that need no lookup and normalises them.
func (in *Input) clean() error {
	in.Comment = hone.CleanText(in.Comment)
	in.Author = strings.TrimSpace(hone.CleanText(in.Author))
	switch {
	case in.ID != "" && len(in.ID) > MaxIDLength:
		return hone.FieldError("id", "id is longer than %d characters", MaxIDLength)
	case in.ID != "" && !idPattern.MatchString(in.ID):
		return hone.FieldError("id", "id %q is not an id: a letter or digit, then letters, digits, ., _, : or -", in.ID)
	}
	for _, f := range []struct {
		name  string
		value *string
	}{{"turn_id", &in.TurnID}, {"workshop_id", &in.WorkshopID}, {"trace_id", &in.TraceID}} {
		if hone.Chars(*f.value) > MaxTargetLength {
			return hone.FieldError(f.name, "%s is longer than %d characters", f.name, MaxTargetLength)
		}
	}
	switch {
	case in.TurnID != "" && (in.WorkshopID != "" || in.TraceID != ""):
		field := "workshop_id"
		if in.WorkshopID == "" {
			field = "trace_id"
		}
		return hone.FieldError(field, "a score judges a turn (turn_id) or a workshop's trace (workshop_id and trace_id), not both")
	case in.TurnID == "" && in.WorkshopID == "" && in.TraceID == "":
		return hone.FieldError("turn_id", "turn_id is required, or workshop_id and trace_id: what the score judges")
	case in.TurnID == "" && in.WorkshopID == "":
		return hone.FieldError("workshop_id", "workshop_id is required with trace_id")
	case in.TurnID == "" && in.TraceID == "":
		return hone.FieldError("trace_id", "trace_id is required with workshop_id")
	case in.Config == "":
		return hone.FieldError("config", "config is required: the name or id of a score config")
	case hone.Chars(in.Config) > MaxTargetLength:
		return hone.FieldError("config", "config is longer than %d characters", MaxTargetLength)
	case hone.Chars(in.Comment) > MaxTextLength:
		return hone.FieldError("comment", "comment is longer than %d characters", MaxTextLength)
	case hone.Chars(in.Author) > MaxAuthorLength:
		return hone.FieldError("author", "author is longer than %d characters", MaxAuthorLength)
	case in.Source == "":
		in.Source = SourceAPI
	case !slices.Contains(Sources, in.Source):
		return hone.FieldError("source", "source must be one of %s, not %q", strings.Join(Sources, ", "), in.Source)
	}
	in.Config = hone.CleanText(in.Config)
	return nil
}

// fingerprint hashes a score's content: what a client sends again when it
// retries.
func (s *Score) fingerprint() string {
	h := sha256.New()
	var b []byte
	for _, part := range []string{s.TurnID, s.WorkshopID, s.TraceID, s.ConfigID, s.Comment, s.Source, s.Author} {
		b = strconv.AppendQuote(b[:0], part)
		h.Write(b)
	}
	switch v := s.Value.(type) {
	case float64:
		b = strconv.AppendFloat(b[:0], v, 'g', -1, 64)
	case bool:
		b = strconv.AppendBool(b[:0], v)
	case string:
		b = strconv.AppendQuote(b[:0], v)
	}
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Target is what a score judges: a turn, or a workshop's trace.
type Target struct {
	TurnID     string
	WorkshopID string
	TraceID    string
}

// Target returns what s judges.
func (s *Score) Target() Target {
	return Target{TurnID: s.TurnID, WorkshopID: s.WorkshopID, TraceID: s.TraceID}
}

// Fill sets the value the API shows from Number and Text, as kept.
func (s *Score) Fill() { s.Value = typedValue(s.DataType, s.Number, s.Text) }
