package otlp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/score"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

// The evaluation event of the GenAI semantic conventions and its
// attributes.
const (
	EvaluationEvent      = "gen_ai.evaluation.result"
	attrEventName        = "event.name"
	attrEvaluationName   = "gen_ai.evaluation.name"
	attrScoreValue       = "gen_ai.evaluation.score.value"
	attrScoreLabel       = "gen_ai.evaluation.score.label"
	attrExplanation      = "gen_ai.evaluation.explanation"
	attrServiceName      = "service.name"
	attrHoneScoreID      = "hone.score.id"
	attrHoneTurnID       = "hone.turn.id"
	attrHoneScoreSource  = "hone.score.source"
	attrHoneScoreAuthor  = "hone.score.author"
	attrHoneWorkshopID   = "hone.workshop.id"
	attrHoneWorkshopSpan = "hone.workshop.trace_id"
)

// Evaluation is a gen_ai.evaluation.result event: what was judged (the
// span, or the model's response id) and the judgment.
type Evaluation struct {
	TraceID, SpanID, ResponseID string
	Name                        string
	Value                       *float64
	Label, Explanation          string
	// Evaluator is the service.name of the resource that sent it.
	Evaluator string
	// Key identifies the event, so that one sent again is recorded once.
	Key string
}

// EvaluationOf reads the evaluation event lr is, with the attributes of
// its resource; ok is false for any other log record.
func EvaluationOf(lr plog.LogRecord, resource pcommon.Map) (ev Evaluation, ok bool) {
	a := attrs{own: lr.Attributes()}
	if lr.EventName() != EvaluationEvent && a.str(attrEventName) != EvaluationEvent {
		return Evaluation{}, false
	}
	if id := lr.TraceID(); !id.IsEmpty() {
		ev.TraceID = id.String()
	}
	if id := lr.SpanID(); !id.IsEmpty() {
		ev.SpanID = id.String()
	}
	ev.ResponseID = a.str(attrResponseID)
	ev.Name = a.str(attrEvaluationName)
	if v, ok := a.number(attrScoreValue); ok {
		ev.Value = &v
	}
	ev.Label = a.str(attrScoreLabel)
	ev.Explanation = a.str(attrExplanation)
	ev.Evaluator = attrs{own: resource}.str(attrServiceName)
	h := sha256.New()
	for _, s := range []string{ev.TraceID, ev.SpanID, ev.ResponseID, ev.Name, ev.Label, ev.Explanation,
		strconv.FormatUint(uint64(lr.Timestamp()), 10), valueText(ev.Value)} {
		h.Write(strconv.AppendQuote(nil, s))
	}
	ev.Key = hex.EncodeToString(h.Sum(nil)[:12])
	return ev, true
}

func valueText(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}

// scoreOf is the score ev gives the turn it judges: under the config named
// after the evaluation (see configFor), its value the score's value or
// label as the config's type takes it, the explanation its comment (with
// the label before it when the label is not the value), source otlp, the
// evaluator (service.name) its author.
func (r *Receiver) scoreOf(ctx context.Context, ev Evaluation, configs map[string]*score.Config) (score.Input, error) {
	if ev.Name == "" {
		return score.Input{}, hone.FieldError(attrEvaluationName, "%s is required: the name of the evaluation, the score config hone records it under", attrEvaluationName)
	}
	if ev.Value == nil && ev.Label == "" {
		return score.Input{}, hone.FieldError(attrScoreValue, "%s or %s is required", attrScoreValue, attrScoreLabel)
	}
	turnID, err := r.turnOf(ctx, ev)
	if err != nil {
		return score.Input{}, err
	}
	c, err := r.configFor(ctx, ev, configs)
	if err != nil {
		return score.Input{}, err
	}
	in := score.Input{ID: "otlp-" + ev.Key, TurnID: turnID, Config: c.ID, Source: score.SourceOTLP, Author: ev.Evaluator,
		Comment: ev.Explanation}
	labelUsed := false
	switch c.DataType {
	case score.Numeric:
		if ev.Value == nil {
			return score.Input{}, hone.FieldError(attrScoreValue, "score config %s is numeric: %s is required", c.Name, attrScoreValue)
		}
		in.Value, _ = json.Marshal(*ev.Value)
	case score.Boolean:
		switch {
		case ev.Value != nil:
			in.Value, _ = json.Marshal(*ev.Value != 0)
		case strings.EqualFold(ev.Label, "true") || strings.EqualFold(ev.Label, "false"):
			in.Value, labelUsed = json.RawMessage(strings.ToLower(ev.Label)), true
		default:
			return score.Input{}, hone.FieldError(attrScoreValue, "score config %s is boolean: %s (0 or 1) or a label true or false is required", c.Name, attrScoreValue)
		}
	default:
		text := ev.Label
		if text == "" && c.DataType == score.Text {
			text = valueText(ev.Value)
		}
		if text == "" {
			return score.Input{}, hone.FieldError(attrScoreLabel, "score config %s is %s: %s is required", c.Name, c.DataType, attrScoreLabel)
		}
		in.Value, _ = json.Marshal(text)
		labelUsed = true
	}
	if !labelUsed && ev.Label != "" {
		in.Comment = strings.TrimSpace(ev.Label + "\n" + ev.Explanation)
	}
	return in, nil
}

// turnOf finds the turn ev judges: by the log record's trace and span
// ids, else by gen_ai.response.id, else by the record's trace alone (its
// last turn: an evaluation of the trace's root span).
func (r *Receiver) turnOf(ctx context.Context, ev Evaluation) (string, error) {
	if ev.TraceID != "" && ev.SpanID != "" {
		id, err := r.Turns.TurnBySpan(ctx, ev.TraceID, ev.SpanID)
		if err == nil || hone.ErrorCode(err) != hone.ENOTFOUND {
			return id, err
		}
	}
	if ev.ResponseID != "" {
		id, err := r.Turns.TurnByResponseID(ctx, MetaResponseID, ev.ResponseID)
		if err == nil || hone.ErrorCode(err) != hone.ENOTFOUND || ev.TraceID == "" {
			return id, err
		}
	}
	if ev.TraceID == "" {
		return "", hone.FieldError("trace_id", "the record names no turn: give the trace and span ids of the span it evaluates, or %s", attrResponseID)
	}
	return r.Turns.TurnByTrace(ctx, ev.TraceID)
}

// configFor returns the config named after the evaluation, adding it on
// first sight: numeric (without bounds) when the event gives a value, text
// when it gives only a label. An existing config keeps its type.
func (r *Receiver) configFor(ctx context.Context, ev Evaluation, configs map[string]*score.Config) (*score.Config, error) {
	key := strings.ToLower(ev.Name)
	if c, ok := configs[key]; ok {
		return c, nil
	}
	in := score.ConfigInput{Name: ev.Name, DataType: score.Numeric,
		Description: "Evaluations " + EvaluationEvent + " sent over OpenTelemetry"}
	if ev.Value == nil {
		in.DataType = score.Text
	}
	c, err := r.Scores.EnsureConfig(ctx, in)
	if err != nil {
		if hone.ErrorField(err) == "name" {
			err = hone.FieldError(attrEvaluationName, "%s %q is not a score config name: a letter, then letters, digits, _, . or -", attrEvaluationName, ev.Name)
		}
		return nil, err
	}
	configs[key] = c
	return c, nil
}
