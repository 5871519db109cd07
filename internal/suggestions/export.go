package suggestions

import (
	"context"
	"encoding/json"
	"io"
	"slices"

	"github.com/honehq/hone"
	"github.com/honehq/hone/suggest"
)

// Export formats.
const (
	// FormatSFT is OpenAI chat fine-tuning JSONL: the recorded request's
	// messages, then the submitted input as the assistant's message.
	FormatSFT = "sft"
	// FormatRanking is the context, the suggestions and the index taken.
	FormatRanking = "ranking"
	// FormatDPO is preference pairs: the accepted input against each
	// suggestion viewed and not taken.
	FormatDPO = "dpo"
)

// Formats are the export formats.
var Formats = []string{FormatSFT, FormatRanking, FormatDPO}

// DefaultFormat is the export format when none is asked for.
const DefaultFormat = FormatSFT

// ExportOptions pick what an export holds.
type ExportOptions struct {
	Format string
	Filter Filter
	// Accepted, for sft, takes every accepted record (partial and prefix
	// too), not only the exact ones.
	Accepted bool
}

// Exported counts what an export wrote and left out.
type Exported struct {
	Lines int `json:"lines"`
	// Skipped are records that could not make a line of the format (no
	// request messages for sft, no suggestion viewed and left for dpo).
	Skipped int `json:"skipped"`
}

// exportRecord is the part of a record the exports read.
type exportRecord struct {
	ID         string         `json:"id"`
	Context    map[string]any `json:"context"`
	LLMRequest *struct {
		Messages []json.RawMessage `json:"messages"`
	} `json:"llm_request"`
	Suggestions   []string `json:"suggestions"`
	ViewedIndices []int    `json:"viewed_indices"`
	AcceptedIndex *int     `json:"accepted_index"`
	ActualInput   string   `json:"actual_input"`
	MatchType     string   `json:"match_type"`
	Version       string   `json:"suggestion_node_version"`
}

// message is a chat message of the sft and dpo lines.
type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// sftLine is one line of FormatSFT.
type sftLine struct {
	Messages []json.RawMessage `json:"messages"`
}

// rankingLine is one line of FormatRanking.
type rankingLine struct {
	ID            string         `json:"id"`
	Context       map[string]any `json:"context"`
	Suggestions   []string       `json:"suggestions"`
	AcceptedIndex int            `json:"accepted_index"`
	MatchType     string         `json:"match_type"`
}

// dpoLine is one line of FormatDPO: the prompt as chat messages, and the
// preferred and the rejected completion.
type dpoLine struct {
	ID       string            `json:"id"`
	Prompt   []json.RawMessage `json:"prompt"`
	Chosen   string            `json:"chosen"`
	Rejected string            `json:"rejected"`
}

// Export writes the records an export picks as JSONL in its format.
func (s *Service) Export(ctx context.Context, w io.Writer, o ExportOptions) (*Exported, error) {
	if !slices.Contains(Formats, o.Format) {
		return nil, hone.FieldError("format", "format must be sft, ranking or dpo, not %q", o.Format)
	}
	f := o.Filter
	if o.Format == FormatSFT && !o.Accepted {
		f.MatchType = suggest.MatchExact
	}
	out := &Exported{}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	err := s.store.Each(ctx, f, func(r *Record) error {
		var e exportRecord
		if err := json.Unmarshal(r.Raw, &e); err != nil {
			out.Skipped++
			return nil
		}
		// The id is the stored one: hone's own when the record came
		// without one.
		e.ID, e.AcceptedIndex, e.MatchType = r.ID, r.AcceptedIndex, r.MatchType
		lines := exportLines(o.Format, &e)
		if len(lines) == 0 {
			out.Skipped++
			return nil
		}
		for _, l := range lines {
			if err := enc.Encode(l); err != nil {
				return err
			}
			out.Lines++
		}
		return nil
	})
	return out, err
}

// exportLines are the lines a record makes in a format.
func exportLines(format string, e *exportRecord) []any {
	var prompt []json.RawMessage
	if e.LLMRequest != nil {
		prompt = e.LLMRequest.Messages
	}
	switch format {
	case FormatSFT:
		if len(prompt) == 0 || e.AcceptedIndex == nil {
			return nil
		}
		answer, _ := json.Marshal(message{Role: "assistant", Content: e.ActualInput})
		return []any{sftLine{Messages: append(slices.Clip(prompt), answer)}}
	case FormatRanking:
		if e.AcceptedIndex == nil {
			return nil
		}
		return []any{rankingLine{ID: e.ID, Context: e.Context, Suggestions: e.Suggestions, AcceptedIndex: *e.AcceptedIndex, MatchType: e.MatchType}}
	case FormatDPO:
		if e.AcceptedIndex == nil || len(prompt) == 0 {
			return nil
		}
		var out []any
		var done []int
		for _, i := range e.ViewedIndices {
			if i == *e.AcceptedIndex || i < 0 || i >= len(e.Suggestions) || slices.Contains(done, i) || e.Suggestions[i] == e.ActualInput {
				continue
			}
			done = append(done, i)
			out = append(out, dpoLine{ID: e.ID, Prompt: prompt, Chosen: e.ActualInput, Rejected: e.Suggestions[i]})
		}
		return out
	}
	return nil
}
