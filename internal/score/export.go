package score

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/honehq/hone"
)

// Export formats.
const (
	FormatJSONL = "jsonl"
	FormatCSV   = "csv"
)

// Formats lists the export formats.
var Formats = []string{FormatJSONL, FormatCSV}

// Targets of an exported score: what it judges.
const (
	TargetTurn  = "turn"
	TargetTrace = "trace"
)

// Targets lists the targets, in the order the API documents them.
var Targets = []string{TargetTurn, TargetTrace}

// ExportRow is one score as exports write it: every column on every row
// (null when empty), so that pandas and DuckDB read the file as is.
type ExportRow struct {
	ID string `json:"id"`
	// Target is turn or trace.
	Target        string  `json:"target"`
	TurnID        *string `json:"turn_id"`
	WorkshopID    *string `json:"workshop_id"`
	TraceID       *string `json:"trace_id"`
	PromptVersion *string `json:"prompt_version"`
	Config        string  `json:"config"`
	ConfigID      string  `json:"config_id"`
	DataType      string  `json:"data_type"`
	// Value is the score's value as the API gives it; NumericValue the
	// number it stands for (a boolean as 1 or 0, a category's number),
	// null when none.
	Value        any       `json:"value"`
	NumericValue *float64  `json:"numeric_value"`
	Comment      *string   `json:"comment"`
	Source       string    `json:"source"`
	Author       *string   `json:"author"`
	CreatedAt    time.Time `json:"created_at"`
}

// ExportColumns are the CSV header, in the order of ExportRow.
var ExportColumns = []string{"id", "target", "turn_id", "workshop_id", "trace_id", "prompt_version", "config", "config_id",
	"data_type", "value", "numeric_value", "comment", "source", "author", "created_at"}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// target is what s judges, as exports name it.
func (s *Score) target() string {
	if s.TurnID == "" {
		return TargetTrace
	}
	return TargetTurn
}

// Row is s as exports write it.
func (s *Score) Row() ExportRow {
	return ExportRow{ID: s.ID, Target: s.target(), TurnID: nullable(s.TurnID), WorkshopID: nullable(s.WorkshopID),
		TraceID: nullable(s.TraceID), PromptVersion: nullable(s.PromptVersion), Config: s.Config, ConfigID: s.ConfigID,
		DataType: s.DataType, Value: s.Value, NumericValue: s.Number, Comment: nullable(s.Comment), Source: s.Source,
		Author: nullable(s.Author), CreatedAt: s.CreatedAt}
}

// Export writes the scores f selects, oldest first, one line (JSONL) or
// row (CSV, with a header) each. CSV cells a spreadsheet would run as a
// formula start with an apostrophe (hone.SpreadsheetSafe); JSONL is exact.
func (s *Service) Export(ctx context.Context, f Filter, format string, w io.Writer) error {
	f.Limit, f.Offset = 0, 0
	switch format {
	case FormatJSONL:
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return s.store.EachScore(ctx, f, func(sc *Score) error { return enc.Encode(sc.Row()) })
	case FormatCSV:
		cw := csv.NewWriter(w)
		if err := cw.Write(ExportColumns); err != nil {
			return err
		}
		err := s.store.EachScore(ctx, f, func(sc *Score) error { return cw.Write(csvRecord(sc)) })
		if err != nil {
			return err
		}
		cw.Flush()
		return cw.Error()
	}
	return hone.FieldError("format", "format must be jsonl or csv, not %q", format)
}

// Each calls fn with every score f selects, oldest first, without limit
// or offset: for exports in formats of other packages.
func (s *Service) Each(ctx context.Context, f Filter, fn func(*Score) error) error {
	f.Limit, f.Offset = 0, 0
	return s.store.EachScore(ctx, f, fn)
}

// csvRecord is a score's CSV row.
func csvRecord(sc *Score) []string {
	value := ""
	switch v := sc.Value.(type) {
	case float64:
		value = strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		value = strconv.FormatBool(v)
	case string:
		value = v
	}
	number := ""
	if sc.Number != nil {
		number = strconv.FormatFloat(*sc.Number, 'g', -1, 64)
	}
	row := []string{sc.ID, sc.target(), sc.TurnID, sc.WorkshopID, sc.TraceID, sc.PromptVersion, sc.Config, sc.ConfigID,
		sc.DataType, value, number, sc.Comment, sc.Source, sc.Author, sc.CreatedAt.UTC().Format(time.RFC3339Nano)}
	for i := range row {
		row[i] = hone.SpreadsheetSafe(row[i])
	}
	return row
}
