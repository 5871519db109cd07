package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/storage"
	"github.com/spf13/cobra"
)

// answerWidth is how many characters of an answer or error the table shows.
const answerWidth = 60

func newLLM(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "llm",
		Short: "Inspect the calls hone makes to an LLM",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newLLMCalls(opts))
	return cmd
}

func newLLMCalls(opts *options) *cobra.Command {
	var f llm.CallFilter
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "calls",
		Short: "List recorded LLM calls, newest first",
		Long: `List recorded LLM calls, newest first: when, purpose, cause, the model asked
for and the one that answered, tokens (prompt+completion), latency, the finish
reason or the error, and the start of the answer.

With --json each call is printed as one JSON object per line, with the full
llm_request and llm_response.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.Limit < 1 || f.Limit > storage.MaxCallLimit {
				return fmt.Errorf("--limit must be from 1 to %d, not %d", storage.MaxCallLimit, f.Limit)
			}
			db, err := opts.openDB(cmd.Context())
			if err != nil {
				return err
			}
			defer db.Close()
			list, err := db.LLMCalls().ListCalls(cmd.Context(), f)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(termOut(cmd.OutOrStdout()))
				enc.SetEscapeHTML(false)
				for _, c := range list {
					if err := enc.Encode(c); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TIME\tID\tPURPOSE\tCAUSE\tMODEL\tTOKENS\tLATENCY\tRESULT\tANSWER")
			for _, c := range list {
				cause := c.CauseID
				if c.CauseType != "" {
					cause = c.CauseType + " " + c.CauseID
				}
				model, tokens, latency, result, answer := cell(c.Request.Model), "-", "-", "-", "-"
				if r := c.Response; r != nil {
					if r.Model != "" && r.Model != c.Request.Model {
						model += " → " + cell(r.Model)
					}
					tokens = fmt.Sprintf("%d+%d", r.Usage.PromptTokens, r.Usage.CompletionTokens)
					latency = fmt.Sprintf("%.0fms", r.LatencyMS)
					result = dash(cell(r.FinishReason))
					answer = dash(cell(r.RawContent))
				}
				if c.Error != "" {
					result = "error: " + cell(c.Error)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.CreatedAt.Format("2006-01-02 15:04:05"),
					c.ID, dash(cell(c.Purpose)), dash(cell(cause)), dash(model), tokens, latency, result, answer)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&f.Purpose, "purpose", "", "only calls of this purpose (chat, follow-up, analysis, judge, …)")
	cmd.Flags().StringVar(&f.CauseID, "cause", "", "only calls caused by this id (a turn, a session, …)")
	cmd.Flags().IntVar(&f.Limit, "limit", storage.DefaultCallLimit, fmt.Sprintf("how many calls (at most %d)", storage.MaxCallLimit))
	cmd.Flags().BoolVar(&asJSON, "json", false, "print each call as a JSON line, with its full request and response")
	return cmd
}

// cell returns s on one line, its runs of spaces and control characters
// made one space and other characters that would act on a terminal escaped
// (see TerminalText), cut to answerWidth characters.
func cell(s string) string {
	var b strings.Builder
	n, space := 0, false
	for _, r := range strings.TrimSpace(s) {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if space && n > 0 {
			b.WriteByte(' ')
			n++
		}
		space = false
		if n >= answerWidth {
			return strings.TrimRight(b.String(), " ") + "…"
		}
		if unsafeRune(r) {
			b.WriteString(escapeRune(r))
		} else {
			b.WriteRune(r)
		}
		n++
	}
	return b.String()
}
