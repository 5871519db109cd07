package otlp

import (
	"bufio"
	"context"
	"encoding/hex"
	"io"
	"slices"

	"github.com/honehq/hone/internal/score"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
)

// Spans finds the trace context of turns.
type Spans interface {
	// TurnSpans returns the trace and span id of each turn of ids that
	// has a trace id.
	TurnSpans(ctx context.Context, ids []string) (map[string][2]string, error)
}

// ServiceName is the service.name of the resource of the records hone
// exports.
const ServiceName = "hone"

// ScoreLogs makes the gen_ai.evaluation.result log records of scores, each
// linked to the trace and span of its turn when spans has them:
// gen_ai.evaluation.name is the config's name, gen_ai.evaluation.score.value
// the number the value stands for, gen_ai.evaluation.score.label a
// category's label, a boolean or a text, gen_ai.evaluation.explanation the
// comment; hone.score.id, hone.turn.id (or hone.workshop.id and
// hone.workshop.trace_id), hone.score.source and hone.score.author say
// where it comes from.
func ScoreLogs(scores []*score.Score, spans map[string][2]string) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr(attrServiceName, ServiceName)
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName("github.com/honehq/hone")
	records := sl.LogRecords()
	records.EnsureCapacity(len(scores))
	for _, sc := range scores {
		lr := records.AppendEmpty()
		lr.SetEventName(EvaluationEvent)
		lr.SetTimestamp(pcommon.NewTimestampFromTime(sc.CreatedAt))
		lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(sc.CreatedAt))
		lr.SetSeverityNumber(plog.SeverityNumberInfo)
		if s, ok := spans[sc.TurnID]; ok && sc.TurnID != "" {
			if id, ok := traceID(s[0]); ok {
				lr.SetTraceID(id)
				if sp, ok := spanID(s[1]); ok {
					lr.SetSpanID(sp)
				}
			}
		}
		a := lr.Attributes()
		a.PutStr(attrEvaluationName, sc.Config)
		if sc.Number != nil && sc.DataType != score.Text {
			a.PutDouble(attrScoreValue, *sc.Number)
		}
		switch v := sc.Value.(type) {
		case string:
			a.PutStr(attrScoreLabel, v)
		case bool:
			if v {
				a.PutStr(attrScoreLabel, "true")
			} else {
				a.PutStr(attrScoreLabel, "false")
			}
		}
		if sc.Comment != "" {
			a.PutStr(attrExplanation, sc.Comment)
		}
		a.PutStr(attrHoneScoreID, sc.ID)
		if sc.TurnID != "" {
			a.PutStr(attrHoneTurnID, sc.TurnID)
		} else {
			a.PutStr(attrHoneWorkshopID, sc.WorkshopID)
			a.PutStr(attrHoneWorkshopSpan, sc.TraceID)
		}
		a.PutStr(attrHoneScoreSource, sc.Source)
		if sc.Author != "" {
			a.PutStr(attrHoneScoreAuthor, sc.Author)
		}
	}
	return ld
}

// traceID parses a trace id of 32 hexadecimal characters.
func traceID(s string) (pcommon.TraceID, bool) {
	var id pcommon.TraceID
	return id, decodeHex(id[:], s)
}

// spanID parses a span id of 16 hexadecimal characters.
func spanID(s string) (pcommon.SpanID, bool) {
	var id pcommon.SpanID
	return id, decodeHex(id[:], s)
}

func decodeHex(dst []byte, s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && copy(dst, b) == len(dst) && len(b) == len(dst)
}

// FormatJSON is the export format of scores as OTLP JSON log records.
const FormatJSON = "otlp-json"

// fileChunk is how many scores one line of an OTLP JSON file holds.
const fileChunk = 1000

// WriteScoresJSON writes the scores each passes on as OTLP JSON, in the
// form of the OpenTelemetry Collector's file exporter: one
// ExportLogsServiceRequest a line, of up to 1,000 gen_ai.evaluation.result
// records each (see ScoreLogs); what `hone scores export --format
// otlp-json` writes.
func WriteScoresJSON(ctx context.Context, w io.Writer, spans Spans, each func(fn func(*score.Score) error) error) error {
	bw := bufio.NewWriter(w)
	var batch []*score.Score
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		var ids []string
		for _, sc := range batch {
			if sc.TurnID != "" {
				ids = append(ids, sc.TurnID)
			}
		}
		slices.Sort(ids)
		found, err := spans.TurnSpans(ctx, slices.Compact(ids))
		if err != nil {
			return err
		}
		b, err := plogotlp.NewExportRequestFromLogs(ScoreLogs(batch, found)).MarshalJSON()
		if err != nil {
			return err
		}
		batch = batch[:0]
		if _, err := bw.Write(append(b, '\n')); err != nil {
			return err
		}
		return nil
	}
	if err := each(func(sc *score.Score) error {
		batch = append(batch, sc)
		if len(batch) == fileChunk {
			return flush()
		}
		return nil
	}); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	return bw.Flush()
}
