package workshop

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/honehq/hone"
)

// Export formats of a workshop.
const (
	ExportJSONL    = "jsonl"
	ExportCSV      = "csv"
	ExportMarkdown = "md"
)

// Export is a workshop's export, ready to be written.
type Export struct {
	Filename    string
	ContentType string
	// Write streams the export.
	Write func(w io.Writer) error
}

// FeedbackRecord is one line of the JSONL export: a feedback record with
// its trace and its follow-up questions and answers.
type FeedbackRecord struct {
	WorkshopID  string    `json:"workshop_id"`
	Trace       *Trace    `json:"trace"`
	UserID      string    `json:"user_id"`
	UserName    string    `json:"user_name"`
	Label       string    `json:"feedback_label"`
	Comment     string    `json:"comment"`
	FollowupQnA []QA      `json:"followup_qna"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// CSVHeader is the header row of the CSV export.
var CSVHeader = []string{"trace_id", "trace_input", "trace_output", "user_id", "user_name", "feedback_label", "comment",
	"question_1", "answer_1", "question_2", "answer_2", "question_3", "answer_3", "fallback_questions", "updated_at"}

// Export returns a workshop's export in format: jsonl (one feedback record
// per line with its trace and Q&A, every text exact), csv (one row per
// feedback record, a cell a spreadsheet would run as a formula neutralised
// with hone.SpreadsheetSafe) or md
// (the latest analysis and the draft rubric by group); facilitators only.
func (s *Service) Export(ctx context.Context, workshopID, userID, format string) (*Export, error) {
	w, _, ms, err := s.facilitator(ctx, workshopID, userID)
	if err != nil {
		return nil, err
	}
	e := &Export{Filename: "hone-workshop-" + w.ID + "." + format}
	switch format {
	case ExportJSONL:
		e.ContentType = "application/x-ndjson"
		e.Write = func(out io.Writer) error { return s.writeJSONL(ctx, out, w, ms) }
	case ExportCSV:
		e.ContentType = "text/csv; charset=utf-8"
		e.Write = func(out io.Writer) error { return s.writeCSV(ctx, out, w, ms) }
	case ExportMarkdown:
		e.ContentType = "text/markdown; charset=utf-8"
		e.Write = func(out io.Writer) error { return s.writeMarkdown(ctx, out, w) }
	default:
		return nil, hone.FieldError("format", "format must be jsonl, csv or md, not %q", format)
	}
	return e, nil
}

// eachRecord calls fn with every feedback record of the workshop, with its trace.
func (s *Service) eachRecord(ctx context.Context, w *Workshop, ms *workshopMembers, fn func(FeedbackRecord) error) error {
	traces, err := s.store.Traces(ctx, w.ID, 0)
	if err != nil {
		return err
	}
	byID := make(map[string]*Trace, len(traces))
	for _, t := range traces {
		byID[t.ID] = t
	}
	fb, err := s.store.ListFeedback(ctx, FeedbackFilter{WorkshopID: w.ID})
	if err != nil {
		return err
	}
	for _, f := range fb {
		name := ""
		if m := ms.byID[f.UserID]; m != nil {
			name = m.Name
		}
		if err := fn(FeedbackRecord{WorkshopID: w.ID, Trace: byID[f.TraceID], UserID: f.UserID, UserName: name, Label: f.Label,
			Comment: f.Comment, FollowupQnA: f.FollowupQnA, CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt}); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) writeJSONL(ctx context.Context, out io.Writer, w *Workshop, ms *workshopMembers) error {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	return s.eachRecord(ctx, w, ms, func(r FeedbackRecord) error { return enc.Encode(r) })
}

func (s *Service) writeCSV(ctx context.Context, out io.Writer, w *Workshop, ms *workshopMembers) error {
	cw := csv.NewWriter(out)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	row := make([]string, len(CSVHeader))
	err := s.eachRecord(ctx, w, ms, func(r FeedbackRecord) error {
		clear(row)
		if r.Trace != nil {
			row[0], row[1], row[2] = r.Trace.ID, r.Trace.InputText, r.Trace.OutputText
		}
		row[3], row[4], row[5], row[6] = r.UserID, r.UserName, r.Label, r.Comment
		var fallbacks []string
		for i, qa := range r.FollowupQnA {
			if i >= Questions {
				break
			}
			row[7+2*i], row[8+2*i] = qa.Question, qa.Answer
			if qa.Fallback {
				fallbacks = append(fallbacks, strconv.Itoa(i+1))
			}
		}
		row[13], row[14] = strings.Join(fallbacks, " "), r.UpdatedAt.UTC().Format(time.RFC3339)
		for i := range row {
			row[i] = hone.SpreadsheetSafe(hone.CleanText(row[i]))
		}
		return cw.Write(row)
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

func (s *Service) writeMarkdown(ctx context.Context, out io.Writer, w *Workshop) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Workshop: %s\n\n", oneLine(w.Name))
	if w.Description != "" {
		b.WriteString(w.Description + "\n\n")
	}
	fmt.Fprintf(&b, "Phase: %s. Traces: %d.\n\n", w.Phase, w.TraceCount)
	analyses, err := s.store.ListAnalyses(ctx, w.ID, "")
	if err != nil {
		return err
	}
	latest := (*Analysis)(nil)
	for _, a := range analyses {
		if a.Status == StatusDone {
			latest = a
			break
		}
	}
	if latest == nil {
		b.WriteString("No analysis has finished yet.\n\n")
	} else {
		fmt.Fprintf(&b, "_Latest analysis %s, %s._\n\n", latest.ID, latest.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"))
		// Every heading of the analysis goes one level down, its title
		// (the first line) too, so that it sits under the workshop's.
		b.WriteString(strings.TrimPrefix(strings.ReplaceAll("\n"+latest.AnalysisData, "\n#", "\n##"), "\n"))
		b.WriteString("\n")
	}
	items, err := s.store.DraftItems(ctx, w.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(&b, "# Draft rubric (%d items)\n\n", len(items))
	var order []string
	groups := map[string][]*DraftItem{}
	names := map[string]string{}
	for _, it := range items {
		if _, ok := groups[it.GroupID]; !ok {
			order = append(order, it.GroupID)
		}
		groups[it.GroupID] = append(groups[it.GroupID], it)
		names[it.GroupID] = it.GroupName
	}
	for _, g := range append(without(order, ""), "") {
		list := groups[g]
		if len(list) == 0 {
			continue
		}
		if g == "" {
			b.WriteString("## Ungrouped\n\n")
		} else {
			fmt.Fprintf(&b, "## %s\n\n", oneLine(names[g]))
		}
		for _, it := range list {
			fmt.Fprintf(&b, "- %s _(%s", oneLine(it.Text), it.SourceType)
			if len(it.SourceTraceIDs) > 0 {
				fmt.Fprintf(&b, "; traces %s", strings.Join(it.SourceTraceIDs, ", "))
			}
			b.WriteString(")_\n")
		}
		b.WriteString("\n")
	}
	_, err = io.WriteString(out, hone.CleanText(b.String()))
	return err
}

func without(list []string, v string) []string {
	out := list[:0:0]
	for _, x := range list {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}
