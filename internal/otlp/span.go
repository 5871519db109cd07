package otlp

import (
	"encoding/json"

	"github.com/honehq/hone/internal/capture"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Attributes of the GenAI semantic conventions, OpenInference and the
// general ones hone reads.
const (
	attrInputMessages      = "gen_ai.input.messages"
	attrOutputMessages     = "gen_ai.output.messages"
	attrSystemInstructions = "gen_ai.system_instructions"
	attrConversationID     = "gen_ai.conversation.id"
	attrRequestModel       = "gen_ai.request.model"
	attrResponseModel      = "gen_ai.response.model"
	attrResponseID         = "gen_ai.response.id"
	attrInputTokens        = "gen_ai.usage.input_tokens"
	attrOutputTokens       = "gen_ai.usage.output_tokens"
	attrPromptTokens       = "gen_ai.usage.prompt_tokens"
	attrCompletionTokens   = "gen_ai.usage.completion_tokens"
	attrProvider           = "gen_ai.provider.name"
	attrSystem             = "gen_ai.system"
	attrOperation          = "gen_ai.operation.name"
	attrOIModel            = "llm.model_name"
	attrOIPromptTokens     = "llm.token_count.prompt"
	attrOICompletionTokens = "llm.token_count.completion"
	attrSessionID          = "session.id"
	attrUserID             = "user.id"
	attrEndUserID          = "enduser.id"
)

// MetaResponseID is the key of a turn's metadata that keeps the span's
// gen_ai.response.id, by which evaluation events find the turn.
const MetaResponseID = attrResponseID

// TurnIDPrefix starts the id of a turn made from a span: the prefix, the
// trace id, "-", the span id. A span exported again is recorded once.
const TurnIDPrefix = "otlp-"

// SpanTurn makes the turn a span carries: its chat under the current GenAI
// semantic conventions (gen_ai.input.messages, gen_ai.output.messages,
// gen_ai.system_instructions), else their earlier events (gen_ai.*.message,
// gen_ai.choice), else OpenInference's llm.input_messages and
// llm.output_messages, else OpenLLMetry's gen_ai.prompt and
// gen_ai.completion; with the model, the token usage, the span's
// duration as latency, its trace context, the conversation
// (gen_ai.conversation.id, session.id, else the trace id) and the tester
// (user.id, enduser.id, else anonymous). resource is the attributes of the
// span's resource, read after the span's own. ok is false for a span that
// carries no chat; the turn is not validated.
func SpanTurn(span ptrace.Span, resource pcommon.Map) (in capture.TurnInput, ok bool, err error) {
	a := attrs{own: span.Attributes(), resource: resource}
	msgs, ok, err := semconvMessages(a)
	if err != nil {
		return capture.TurnInput{}, true, err
	}
	if !ok {
		msgs, ok = eventMessages(span.Events())
	}
	if !ok {
		msgs, ok = openInferenceMessages(span.Attributes())
	}
	if !ok {
		msgs, ok = openLLMetryMessages(span.Attributes())
	}
	if !ok {
		return capture.TurnInput{}, false, nil
	}
	in.Messages = msgs
	in.Source = capture.SourceOTLP
	trace, id := span.TraceID(), span.SpanID()
	if !trace.IsEmpty() {
		in.TraceID = trace.String()
		if !id.IsEmpty() {
			in.SpanID = id.String()
			in.ID = TurnIDPrefix + in.TraceID + "-" + in.SpanID
		}
		if p := span.ParentSpanID(); !p.IsEmpty() {
			in.ParentID = p.String()
		}
	}
	in.ConversationID = a.str(attrConversationID, attrSessionID)
	if in.ConversationID == "" {
		in.ConversationID = in.TraceID
	}
	in.TesterID = a.str(attrUserID, attrEndUserID)
	in.Model = a.str(attrResponseModel, attrRequestModel, attrOIModel)
	in.Usage = usage(a)
	if start, end := span.StartTimestamp(), span.EndTimestamp(); start != 0 && end >= start {
		ms := float64(end-start) / 1e6
		in.LatencyMS = &ms
	}
	meta := map[string]string{}
	for _, k := range []string{attrResponseID, attrProvider, attrSystem, attrOperation} {
		if v := a.str(k); v != "" {
			meta[k] = v
		}
	}
	if len(meta) > 0 {
		in.Metadata, _ = json.Marshal(meta)
	}
	return in, true, nil
}

// usage is the span's token usage, nil when it gives none.
func usage(a attrs) *capture.Usage {
	in, okIn := a.number(attrInputTokens, attrPromptTokens, attrOIPromptTokens)
	out, okOut := a.number(attrOutputTokens, attrCompletionTokens, attrOICompletionTokens)
	if !okIn && !okOut {
		return nil
	}
	u := &capture.Usage{PromptTokens: int64(in), CompletionTokens: int64(out)}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}
