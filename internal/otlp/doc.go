// Package otlp is hone's OpenTelemetry face: it turns the spans of chat
// exchanges an application exports over OTLP/HTTP into turns (the GenAI
// semantic conventions, their earlier event form, and OpenInference), the
// gen_ai.evaluation.result events it exports into scores of those turns, and
// exports every score hone records as such an event.
package otlp
