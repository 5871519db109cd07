package workshop

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/ndjson"
)

// ImportError is an import refused because some traces of the file are
// invalid; Lines says which and why: the first ndjson.ListedErrors of them,
// NotListed counting the others.
type ImportError struct {
	Lines     []LineError
	NotListed int
}

func (e *ImportError) Error() string { return hone.ErrorMessage(e) }

// Unwrap gives the error's code and a message naming the first lines.
func (e *ImportError) Unwrap() error {
	var parts []string
	for i, l := range e.Lines {
		if i == 3 {
			break
		}
		parts = append(parts, fmt.Sprintf("line %d: %s", l.Line, l.Message))
	}
	total := len(e.Lines) + e.NotListed
	if more := total - len(parts); more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", more))
	}
	field := ""
	if len(e.Lines) > 0 {
		field = e.Lines[0].Field
	}
	return &hone.Error{Code: hone.EINVALID, Field: field, Message: fmt.Sprintf("%d trace(s) of the file cannot be imported, so none was: %s. Fix them, or import the others with skip_invalid",
		total, strings.Join(parts, "; "))}
}

// Details are the invalid lines listed, for the API's error body.
func (e *ImportError) Details() any { return e.Lines }

// ErrorsNotListed counts the invalid lines past those listed.
func (e *ImportError) ErrorsNotListed() int { return e.NotListed }

// listed keeps the first ndjson.ListedErrors lines and counts the others.
func listed(lines []LineError) ([]LineError, int) {
	if len(lines) <= ndjson.ListedErrors {
		return lines, 0
	}
	return slices.Clip(lines[:ndjson.ListedErrors]), len(lines) - ndjson.ListedErrors
}

// ImportTraces imports the traces of a file in format (see ParseTraces);
// facilitators only. A file with an invalid trace imports nothing, unless
// skipInvalid is set: then the valid ones are imported and the others
// listed in the result. A trace whose text the workshop's JSONPath
// extraction cannot give within its bounds is an invalid trace.
func (s *Service) ImportTraces(ctx context.Context, workshopID, userID string, r io.Reader, format string, skipInvalid bool) (*ImportResult, error) {
	w, _, _, err := s.facilitator(ctx, workshopID, userID)
	if err != nil {
		return nil, err
	}
	x, err := newExtraction(w)
	if err != nil {
		return nil, err
	}
	parsed, bad, err := ParseTraces(r, format)
	if err != nil {
		return nil, err
	}
	existing, err := s.traceIDs(ctx, workshopID)
	if err != nil {
		return nil, err
	}
	var good []extracted
	for _, p := range parsed {
		if p.ID != "" && existing[p.ID] {
			bad = append(bad, LineError{Line: p.Line, Field: "id", Message: fmt.Sprintf("the workshop has a trace %q already", p.ID)})
			continue
		}
		if field := tooLong(p.TraceInput); field != "" {
			bad = append(bad, LineError{Line: p.Line, Field: field, Message: fmt.Sprintf("%s is longer than %d characters", field, MaxTextLength)})
			continue
		}
		t, err := x.texts(p.TraceInput)
		if err != nil {
			bad = append(bad, LineError{Line: p.Line, Field: hone.ErrorField(err), Message: hone.ErrorMessage(err)})
			continue
		}
		good = append(good, t)
	}
	sortLines(bad)
	lines, notListed := listed(bad)
	if len(bad) > 0 && !skipInvalid {
		return nil, &ImportError{Lines: lines, NotListed: notListed}
	}
	res, err := s.addTraces(ctx, w, good)
	if err != nil {
		return nil, err
	}
	res.Skipped, res.ErrorsNotListed = lines, notListed
	return res, nil
}

// extraction is a workshop's extraction of the texts of its traces.
type extraction struct{ input, output *extractor }

// newExtraction parses the workshop's JSONPath queries; one set before
// hone checked their cost is refused here, naming it.
func newExtraction(w *Workshop) (*extraction, error) {
	in, err := newExtractor("input_jsonpath", w.InputJSONPath)
	if err != nil {
		return nil, err
	}
	out, err := newExtractor("output_jsonpath", w.OutputJSONPath)
	if err != nil {
		return nil, err
	}
	return &extraction{input: in, output: out}, nil
}

// extracted is a trace to add with its texts.
type extracted struct {
	TraceInput
	inputText, outputText string
}

// texts extracts the texts of in, or says which bound it went past.
func (x *extraction) texts(in TraceInput) (extracted, error) {
	inText, err := x.input.extract(in.Input)
	if err != nil {
		return extracted{}, err
	}
	outText, err := x.output.extract(in.Output)
	if err != nil {
		return extracted{}, err
	}
	return extracted{TraceInput: in, inputText: hone.CleanText(inText), outputText: hone.CleanText(outText)}, nil
}

// tooLong names the input or output of in that is longer than
// MaxTextLength characters, "" when neither is.
func tooLong(in TraceInput) string {
	switch {
	case len(in.Input) > MaxTextLength && hone.Chars(string(in.Input)) > MaxTextLength:
		return "input"
	case len(in.Output) > MaxTextLength && hone.Chars(string(in.Output)) > MaxTextLength:
		return "output"
	}
	return ""
}

// SessionImport names the tuning sessions whose turns become traces: one
// session, or every session of a prompt version.
type SessionImport struct {
	SessionID     string `json:"session_id,omitempty"`
	PromptVersion string `json:"prompt_version,omitempty"`
}

// ImportSessions imports the turns of hone tuning sessions as traces:
// input the user message, output the response, context the retrieval
// results, metadata where the turn came from. A turn keeps its id, so a
// turn imported before is skipped, and so is a turn whose text the
// workshop's JSONPath extraction cannot give within its bounds. It reads
// any of hone's captured sessions, so it is the admin's (or, on a hone
// without an API token, anyone's) acting as a facilitator: a workshop
// member's own token, even a facilitator's, is EFORBIDDEN.
func (s *Service) ImportSessions(ctx context.Context, workshopID, userID string, in SessionImport) (*ImportResult, error) {
	w, _, _, err := s.facilitator(ctx, workshopID, userID)
	if err != nil {
		return nil, err
	}
	if id, _ := hone.IdentityFrom(ctx); id.Kind == hone.IdentityMember {
		return nil, errSessionsAdminOnly
	}
	x, err := newExtraction(w)
	if err != nil {
		return nil, err
	}
	if s.turns == nil {
		return nil, hone.Errorf(hone.EUNAVAILABLE, "importing sessions is not available here")
	}
	var sessions []*capture.Session
	switch {
	case in.SessionID != "" && in.PromptVersion != "":
		return nil, hone.FieldError("session_id", "give session_id or prompt_version, not both")
	case in.SessionID != "":
		sess, err := s.turns.FindSession(ctx, in.SessionID)
		if err != nil {
			return nil, err
		}
		sessions = []*capture.Session{sess}
	case in.PromptVersion != "":
		for offset := 0; ; offset += 1000 {
			page, err := s.turns.ListSessions(ctx, capture.SessionFilter{PromptVersion: in.PromptVersion, Offset: offset, Limit: 1000})
			if err != nil {
				return nil, err
			}
			sessions = append(sessions, page...)
			if len(page) < 1000 {
				break
			}
		}
		if len(sessions) == 0 {
			return nil, hone.Errorf(hone.ENOTFOUND, "no session has prompt version %q", in.PromptVersion)
		}
		for i, j := 0, len(sessions)-1; i < j; i, j = i+1, j-1 {
			sessions[i], sessions[j] = sessions[j], sessions[i]
		}
	default:
		return nil, hone.FieldError("session_id", "give session_id (one session) or prompt_version (every session of it)")
	}
	existing, err := s.traceIDs(ctx, workshopID)
	if err != nil {
		return nil, err
	}
	var inputs []extracted
	skipped := []LineError{}
	for _, sess := range sessions {
		err := s.turns.EachTurn(ctx, sess.ID, func(t *capture.Turn) error {
			if existing[t.ID] {
				skipped = append(skipped, LineError{Field: "id", Message: fmt.Sprintf("turn %s of session %s is a trace already", t.ID, sess.ID)})
				return nil
			}
			if len(inputs) >= MaxImportTraces {
				return hone.Errorf(hone.ETOOLARGE, "more than %d turns to import at once; import fewer sessions", MaxImportTraces)
			}
			tr, err := x.texts(turnTrace(sess, t))
			if err != nil {
				skipped = append(skipped, LineError{Field: hone.ErrorField(err),
					Message: fmt.Sprintf("turn %s of session %s: %s", t.ID, sess.ID, hone.ErrorMessage(err))})
				return nil
			}
			existing[t.ID] = true
			inputs = append(inputs, tr)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	res, err := s.addTraces(ctx, w, inputs)
	if err != nil {
		return nil, err
	}
	if len(skipped) > 0 {
		res.Skipped, res.ErrorsNotListed = listed(skipped)
	}
	return res, nil
}

// errSessionsAdminOnly refuses a workshop member's import of tuning sessions.
var errSessionsAdminOnly = hone.Errorf(hone.EFORBIDDEN,
	"importing tuning sessions reads any session hone captured, so it is the admin's: a workshop member's token, even a facilitator's, cannot; import a file of traces, or ask the admin")

// turnTrace is a turn of a session as a trace.
func turnTrace(sess *capture.Session, t *capture.Turn) TraceInput {
	str := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	meta, _ := json.Marshal(map[string]any{"source": "hone-session", "session_id": sess.ID, "turn_id": t.ID,
		"turn_number": t.Number, "prompt_version": sess.PromptVersion, "tester_id": sess.TesterID})
	in := TraceInput{ID: t.ID, Input: str(t.UserMessage), Output: str(t.Response), Metadata: meta}
	if len(t.SearchResults) > 0 {
		in.Context = append(json.RawMessage(nil), t.SearchResults...)
	}
	return in
}

// traceIDs returns the ids of a workshop's traces.
func (s *Service) traceIDs(ctx context.Context, workshopID string) (map[string]bool, error) {
	all, err := s.store.Traces(ctx, workshopID, 0)
	if err != nil {
		return nil, err
	}
	ids := make(map[string]bool, len(all))
	for _, t := range all {
		ids[t.ID] = true
	}
	return ids, nil
}

// addTraces stores inputs as traces of w.
func (s *Service) addTraces(ctx context.Context, w *Workshop, inputs []extracted) (*ImportResult, error) {
	res := &ImportResult{IDs: []string{}}
	if len(inputs) == 0 {
		return res, nil
	}
	now := s.opts.Now().UTC()
	traces := make([]*Trace, len(inputs))
	for i, in := range inputs {
		id := in.ID
		if id == "" {
			id = hone.NewID(idLength)
		}
		traces[i] = &Trace{ID: id, WorkshopID: w.ID, Input: in.Input, Output: in.Output, Context: in.Context,
			Metadata: in.Metadata, InputText: in.inputText, OutputText: in.outputText, CreatedAt: now}
		res.IDs = append(res.IDs, id)
	}
	if err := s.store.AddTraces(ctx, w.ID, traces); err != nil {
		return nil, err
	}
	res.Imported = len(traces)
	return res, nil
}

func sortLines(lines []LineError) {
	for i := 1; i < len(lines); i++ {
		for j := i; j > 0 && lines[j].Line < lines[j-1].Line; j-- {
			lines[j], lines[j-1] = lines[j-1], lines[j]
		}
	}
}

// Trace states of a participant's trace in discovery.
const (
	StateFeedback = "feedback"
	StateQuestion = "question"
	StateAnswer   = "answer"
	StateComplete = "complete"
)

// TraceView is a trace as a member sees it in discovery: with where they
// are on it, for the traces assigned to them.
type TraceView struct {
	*Trace
	// Assigned is set for the traces discovery reviews.
	Assigned bool `json:"assigned"`
	// State is the caller's step on the trace: feedback (none yet),
	// question (the next follow-up question is to be asked), answer (a
	// question awaits its answer) or complete; with QuestionNumber the
	// number of the question concerned.
	State          string `json:"state,omitempty"`
	QuestionNumber int    `json:"question_number,omitempty"`
}

// Traces lists the traces the caller may see: a participant (or an admin
// naming one) their assigned traces in their own order, with their state
// on each; a facilitator every trace by position.
func (s *Service) Traces(ctx context.Context, workshopID, userID string) ([]TraceView, error) {
	w, a, _, err := s.resolve(ctx, workshopID, userID)
	if err != nil {
		return nil, err
	}
	if a.Member == nil || a.Member.Role == RoleFacilitator && userID == "" {
		all, err := s.store.Traces(ctx, workshopID, 0)
		if err != nil {
			return nil, err
		}
		out := make([]TraceView, len(all))
		for i, t := range all {
			out[i] = TraceView{Trace: t, Assigned: w.DiscoveryStarted && t.Position < w.AssignedCount}
		}
		return out, nil
	}
	return s.assigned(ctx, w, a.Member)
}

// assigned lists the traces assigned to m in m's order, with m's state on each.
func (s *Service) assigned(ctx context.Context, w *Workshop, m *Member) ([]TraceView, error) {
	if !w.DiscoveryStarted {
		return []TraceView{}, nil
	}
	traces, err := s.store.Traces(ctx, w.ID, w.AssignedCount)
	if err != nil {
		return nil, err
	}
	fb, err := s.store.ListFeedback(ctx, FeedbackFilter{WorkshopID: w.ID, UserID: m.ID})
	if err != nil {
		return nil, err
	}
	byTrace := make(map[string]*Feedback, len(fb))
	for _, f := range fb {
		byTrace[f.TraceID] = f
	}
	out := make([]TraceView, 0, len(traces))
	for _, i := range order(w.ID, m.ID, len(traces), w.DiscoveryRandomize) {
		v := TraceView{Trace: traces[i], Assigned: true}
		v.State, v.QuestionNumber = stateOf(byTrace[traces[i].ID])
		out = append(out, v)
	}
	return out, nil
}

// stateOf is the step a feedback record is at.
func stateOf(f *Feedback) (string, int) {
	switch {
	case f == nil:
		return StateFeedback, 0
	case f.Complete():
		return StateComplete, 0
	case f.Pending != nil:
		return StateAnswer, f.Pending.Number
	}
	return StateQuestion, len(f.FollowupQnA) + 1
}
