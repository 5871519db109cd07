package capture

import (
	"fmt"
	"math"
	"slices"
	"strings"

	invopop "github.com/invopop/jsonschema"

	"github.com/honehq/hone/internal/jsonschema"
)

// TesterRules are the rules Tester.Validate checks, by property.
var TesterRules = map[string]jsonschema.Rule{
	"conversation_id": jsonschema.All(jsonschema.MaxLength(MaxIDLength), jsonschema.NotBlank),
	"tester_id":       jsonschema.All(jsonschema.MaxLength(MaxIDLength), jsonschema.NotBlank),
	"tester_email":    jsonschema.All(jsonschema.MaxLength(MaxIDLength), jsonschema.Pattern("^$|"+jsonschema.Spaces(EmailPattern))),
}

// notBlankText is a text that is not only white space.
var notBlankText = jsonschema.All(jsonschema.Type("string"), jsonschema.Pattern("[^"+jsonschema.SpaceChars+"]"))

// hasText is a message of role whose text (see Message.Text) is not only
// white space.
func hasText(role string) jsonschema.Rule {
	return jsonschema.All(jsonschema.Type("array"), contains(jsonschema.Type("object"),
		jsonschema.Require("role", "content"), jsonschema.Prop("role", jsonschema.Const(role)),
		jsonschema.Prop("content", jsonschema.AnyOf(jsonschema.Schema(notBlankText),
			jsonschema.Schema(jsonschema.Type("array"), contains(jsonschema.Type("object"), jsonschema.Require("type", "text"),
				jsonschema.Prop("type", jsonschema.Const(PartText)), jsonschema.Prop("text", notBlankText)))))))
}

// contains says an array holds at least one element of rules.
func contains(rules ...jsonschema.Rule) jsonschema.Rule {
	return func(s *invopop.Schema) { s.Contains = jsonschema.Schema(rules...) }
}

// types sets the JSON types a property may have.
func types(t ...string) jsonschema.Rule {
	return func(s *invopop.Schema) {
		s.Type = ""
		if s.Extras == nil {
			s.Extras = map[string]any{}
		}
		s.Extras["type"] = t
	}
}

// given is a string property that is not empty.
func given(name string) jsonschema.Rule {
	return jsonschema.All(jsonschema.Require(name), jsonschema.Prop(name, jsonschema.Type("string"), jsonschema.MinLength(1)))
}

// traceIDRule is a W3C trace context id of n lowercase hexadecimal characters,
// not all zero, or empty.
func traceIDRule(n int) jsonschema.Rule {
	return jsonschema.All(jsonschema.Pattern(fmt.Sprintf("^$|^[0-9a-f]{%d}$", n)),
		jsonschema.Not(jsonschema.Const(strings.Repeat("0", n))))
}

// JSONSchemaExtend states the rules TurnInput.Validate checks: a user
// message and a response, given or found in messages (see Derive), and the
// bounds of the richer record.
func (TurnInput) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"conversation_id"}
	jsonschema.Set(s, "id", jsonschema.MaxLength(MaxTurnIDLength), jsonschema.Pattern("^$|"+TurnIDPattern))
	optionalText := jsonschema.Pattern("^$|[^" + jsonschema.SpaceChars + "]")
	for name, rule := range TesterRules {
		if name == "tester_id" {
			rule = jsonschema.All(jsonschema.MaxLength(MaxIDLength), optionalText)
		}
		jsonschema.Set(s, name, rule)
	}
	jsonschema.Set(s, "user_message", jsonschema.MaxLength(MaxTextLength), optionalText)
	jsonschema.Set(s, "response", jsonschema.MaxLength(MaxTextLength), optionalText)
	jsonschema.Set(s, "prompt_version", jsonschema.MaxLength(MaxIDLength))
	jsonschema.Set(s, "branch", jsonschema.MaxLength(MaxIDLength))
	jsonschema.Set(s, "avg_similarity", jsonschema.Range(0, 1))
	jsonschema.Set(s, "processing_time_ms", jsonschema.Range(0, math.MaxFloat64))
	jsonschema.Set(s, "metadata", jsonschema.Type("object"))
	jsonschema.Set(s, "messages", jsonschema.MaxItems(MaxMessages))
	jsonschema.Set(s, "model", jsonschema.MaxLength(MaxIDLength))
	jsonschema.Set(s, "latency_ms", jsonschema.Range(0, math.MaxFloat64))
	jsonschema.Set(s, "source", jsonschema.Enum(append(slices.Clone(Sources), "")...))
	jsonschema.Set(s, "trace_id", traceIDRule(TraceIDLength))
	jsonschema.Set(s, "span_id", traceIDRule(SpanIDLength))
	jsonschema.Set(s, "parent_id", traceIDRule(SpanIDLength))
	jsonschema.Apply(s, jsonschema.AllOf(
		jsonschema.Schema(jsonschema.AnyOf(jsonschema.Schema(given("user_message")),
			jsonschema.Schema(jsonschema.Require("messages"), jsonschema.Prop("messages", hasText(RoleUser))))),
		jsonschema.Schema(jsonschema.AnyOf(jsonschema.Schema(given("response")),
			jsonschema.Schema(jsonschema.Require("messages"), jsonschema.Prop("messages", hasText(RoleAssistant))))),
		jsonschema.Schema(jsonschema.If(given("span_id")), jsonschema.Then(given("trace_id"))),
		jsonschema.Schema(jsonschema.If(given("parent_id")), jsonschema.Then(given("trace_id"))),
	))
}

// roleIs is a message whose role is one of roles.
func roleIs(roles ...string) jsonschema.Rule {
	if len(roles) == 1 {
		return jsonschema.All(jsonschema.Require("role"), jsonschema.Prop("role", jsonschema.Const(roles[0])))
	}
	return jsonschema.All(jsonschema.Require("role"), jsonschema.Prop("role", jsonschema.Enum(roles...)))
}

// JSONSchemaExtend states the rules a message's validation checks: its
// role, the content each role needs, tool calls for assistant messages
// only and a tool_call_id for tool messages only.
func (Message) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"role"}
	jsonschema.Set(s, "role", jsonschema.Enum(Roles...), jsonschema.NotNull)
	jsonschema.Set(s, "content", types("string", "array", "null"), jsonschema.MaxLength(MaxTextLength),
		jsonschema.MaxItems(MaxParts), jsonschema.Items(jsonschema.Ref("ContentPart")))
	jsonschema.Set(s, "name", jsonschema.MaxLength(MaxIDLength))
	jsonschema.Set(s, "tool_calls", jsonschema.MaxItems(MaxToolCalls))
	jsonschema.Set(s, "tool_call_id", jsonschema.MaxLength(MaxIDLength))
	content := jsonschema.All(jsonschema.Require("content"), jsonschema.Prop("content", types("string", "array")))
	jsonschema.Apply(s, jsonschema.AllOf(
		jsonschema.Schema(jsonschema.If(roleIs(RoleSystem, RoleDeveloper, RoleUser, RoleTool)), jsonschema.Then(content)),
		jsonschema.Schema(jsonschema.If(roleIs(RoleAssistant)), jsonschema.Then(jsonschema.AnyOf(jsonschema.Schema(content),
			jsonschema.Schema(jsonschema.Require("tool_calls"), jsonschema.Prop("tool_calls", jsonschema.Type("array"), jsonschema.MinItems(1)))))),
		jsonschema.Schema(jsonschema.If(jsonschema.Require("role"), jsonschema.Prop("role", jsonschema.Not(jsonschema.Const(RoleAssistant)))),
			jsonschema.Then(jsonschema.Prop("tool_calls", jsonschema.MaxItems(0)))),
		jsonschema.Schema(jsonschema.If(roleIs(RoleTool)), jsonschema.Then(given("tool_call_id")),
			jsonschema.Else(jsonschema.Prop("tool_call_id", jsonschema.MaxLength(0)))),
	))
}

// ContentPartSchema states what a content part of a message holds: a type,
// and a text when it is a text part; anything else is kept as given.
func ContentPartSchema(s *invopop.Schema) {
	*s = *jsonschema.Schema(jsonschema.Type("object"), jsonschema.Require("type"), jsonschema.Open,
		jsonschema.Prop("type", jsonschema.Type("string"), jsonschema.MinLength(1), jsonschema.MaxLength(MaxIDLength)),
		jsonschema.Prop("text", jsonschema.Type("string"), jsonschema.MaxLength(MaxTextLength)),
		jsonschema.If(jsonschema.Require("type"), jsonschema.Prop("type", jsonschema.Const(PartText))),
		jsonschema.Then(jsonschema.Require("text")))
}

// JSONSchemaExtend states a tool call's id and type.
func (ToolCall) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"id", "type", "function"}
	jsonschema.Set(s, "id", jsonschema.MinLength(1), jsonschema.MaxLength(MaxIDLength), jsonschema.NotNull)
	jsonschema.Set(s, "type", jsonschema.Const(ToolTypeFunction), jsonschema.NotNull)
}

// JSONSchemaExtend states a called function's name and arguments.
func (FunctionCall) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"name"}
	jsonschema.Set(s, "name", jsonschema.MinLength(1), jsonschema.MaxLength(MaxIDLength), jsonschema.NotNull)
	jsonschema.Set(s, "arguments", jsonschema.MaxLength(MaxTextLength))
}

// JSONSchemaExtend states the token counts Usage.UnmarshalJSON takes.
func (Usage) JSONSchemaExtend(s *invopop.Schema) {
	s.Required = []string{"prompt_tokens", "completion_tokens"}
	for _, name := range []string{"prompt_tokens", "completion_tokens", "total_tokens"} {
		jsonschema.Set(s, name, jsonschema.Range(0, MaxTokens))
	}
	jsonschema.Set(s, "prompt_tokens", jsonschema.NotNull)
	jsonschema.Set(s, "completion_tokens", jsonschema.NotNull)
}

// JSONSchemaExtend states a session's counts and metadata.
func (Session) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "total_turns", jsonschema.Minimum(0))
	jsonschema.Set(s, "total_improvements", jsonschema.Minimum(0))
	jsonschema.Set(s, "metadata", jsonschema.Type("object"))
}

// JSONSchemaExtend states a turn's number, metadata and score bounds,
// and the richer record's fields as recorded.
func (Turn) JSONSchemaExtend(s *invopop.Schema) {
	jsonschema.Set(s, "turn_number", jsonschema.Minimum(1))
	jsonschema.Set(s, "metadata", jsonschema.Type("object"))
	jsonschema.Set(s, "messages", jsonschema.Type("array"), jsonschema.Items(jsonschema.Ref("Message")))
	jsonschema.Set(s, "usage", jsonschema.Ref("TurnUsage"))
	jsonschema.Set(s, "latency_ms", jsonschema.Minimum(0))
	jsonschema.Set(s, "source", jsonschema.Enum(Sources...))
	jsonschema.Set(s, "trace_id", jsonschema.Pattern(fmt.Sprintf("^[0-9a-f]{%d}$", TraceIDLength)))
	jsonschema.Set(s, "span_id", jsonschema.Pattern(fmt.Sprintf("^[0-9a-f]{%d}$", SpanIDLength)))
	jsonschema.Set(s, "parent_id", jsonschema.Pattern(fmt.Sprintf("^[0-9a-f]{%d}$", SpanIDLength)))
	for _, name := range []string{"objective_quality_score", "subjective_quality_score", "overall_quality_score"} {
		jsonschema.Set(s, name, jsonschema.Range(0, 1))
	}
}
