package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/learning"
	"github.com/spf13/cobra"
)

// maxStatsDays bounds hone feedback stats --days: a hundred years.
const maxStatsDays = 36500

func newFeedback(opts *options) *cobra.Command {
	stats := newFeedbackStats(opts)
	cmd := &cobra.Command{
		Use:   "feedback",
		Short: "The 👍/👎 testers gave: approval statistics, recent 👎, corrections awaiting synthesis",
		Long: `Read the feedback testers gave responses: 👍 or 👎 in the chat (or through the
API), and after a 👎 their answer to "What should I have done differently?",
kept as a correction until hone learn synthesize learns from it.
Without a subcommand, hone feedback shows the statistics of the last 30 days.

Printed to a terminal, what testers and the model wrote is shown with the
characters that would act on it escaped, as \u001b; to a file or a pipe it is
exact.`,
		Example: `  hone feedback stats --days 7
  hone feedback negative --limit 5
  hone feedback corrections`,
		Args: cobra.NoArgs,
		RunE: stats.RunE,
	}
	cmd.AddCommand(stats, newFeedbackNegative(opts), newFeedbackCorrections(opts))
	return cmd
}

// withLearning runs fn with the learning loop wired as hone serve wires it,
// over the configured database. With prompts, the prompt files are loaded,
// so that synthesis knows the protected rules of the base prompt.
func (o *options) withLearning(cmd *cobra.Command, prompts bool, fn func(ctx context.Context, s *learning.Service) error) error {
	cfg := o.cfg
	if !prompts {
		cfg.Prompts = nil
	}
	ctx := cmd.Context()
	a, err := app.Open(ctx, cfg, slog.Default())
	if err != nil {
		return err
	}
	defer a.Close()
	return fn(ctx, a.Learning)
}

func newFeedbackStats(opts *options) *cobra.Command {
	days := 30
	cmd := &cobra.Command{
		Use:   "stats [--days 30]",
		Short: "Approval of the rated responses: in all, by intent and by context type",
		Long: `Show how many responses were rated in the last days (30 unless --days says
otherwise), how many 👍 and 👎, the approval by intent and by context type
(as the application gave them with each rating), and how many corrections
await synthesis.`,
		Example: `  hone feedback stats
  hone feedback stats --days 7`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if days < 1 || days > maxStatsDays {
				return hone.FieldError("days", "--days must be from 1 to %d, not %d", maxStatsDays, days)
			}
			return opts.withLearning(cmd, false, func(ctx context.Context, s *learning.Service) error {
				st, err := s.Stats(ctx, days)
				if err != nil {
					return err
				}
				return termPrint(cmd.OutOrStdout(), func(w io.Writer) error {
					writeStats(w, st, days)
					return nil
				})
			})
		},
	}
	cmd.Flags().IntVar(&days, "days", days, "how many days back to count")
	return cmd
}

// writeStats writes the statistics in the spec's words.
func writeStats(w io.Writer, st *learning.Stats, days int) {
	period := countNoun(days, "day", "days")
	if st.Total == 0 {
		fmt.Fprintf(w, "No responses rated in the last %s. Testers rate them with 👍 or 👎 in the chat.\n", period)
	} else {
		fmt.Fprintf(w, "Last %s:\n", period)
		fmt.Fprintf(w, "- Total responses rated: %d\n", st.Total)
		fmt.Fprintf(w, "- Thumbs up: %d (%.0f%%)\n", st.Up, st.Percent)
		fmt.Fprintf(w, "- Thumbs down: %d (%.0f%%)\n", st.Down, 100*float64(st.Down)/float64(st.Total))
		for _, g := range []struct {
			title string
			list  []learning.Approval
		}{{"By Intent", st.ByIntent}, {"By Context Type", st.ByContextType}} {
			if len(g.list) == 0 {
				continue
			}
			fmt.Fprintf(w, "\n%s:\n", g.title)
			for _, a := range g.list {
				fmt.Fprintf(w, "- %s: %.0f%% approval\n", flatLine(a.Name), a.Percent)
			}
		}
	}
	fmt.Fprintf(w, "\nCorrections awaiting synthesis: %d", st.PendingCorrections)
	if st.PendingCorrections > 0 {
		fmt.Fprint(w, " (hone feedback corrections lists them; hone learn synthesize learns from them)")
	}
	fmt.Fprintln(w)
}

// listLimit checks a --limit flag: 1 to learning.MaxList.
func listLimit(limit int) error {
	if limit < 1 || limit > learning.MaxList {
		return hone.FieldError("limit", "--limit must be from 1 to %d, not %d", learning.MaxList, limit)
	}
	return nil
}

func newFeedbackNegative(opts *options) *cobra.Command {
	limit := 20
	cmd := &cobra.Command{
		Use:   "negative [--limit 20]",
		Short: "List the latest 👎 with the user's message and the response",
		Long: `List the latest responses rated 👎, newest first: who rated which turn, when,
with the intent and context type the application gave, then the user's
message and the response in full.`,
		Example: `  hone feedback negative
  hone feedback negative --limit 5 > negative.txt`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := listLimit(limit); err != nil {
				return err
			}
			return opts.withLearning(cmd, false, func(ctx context.Context, s *learning.Service) error {
				list, err := s.Negative(ctx, limit+1)
				if err != nil {
					return err
				}
				more := len(list) > limit
				if more {
					list = list[:limit]
				}
				return termPrint(cmd.OutOrStdout(), func(w io.Writer) error {
					writeNegative(w, list, more)
					return nil
				})
			})
		},
	}
	cmd.Flags().IntVar(&limit, "limit", limit, fmt.Sprintf("how many (at most %d)", learning.MaxList))
	return cmd
}

// writeNegative writes the 👎 of list; more says that older ones are left
// out.
func writeNegative(w io.Writer, list []*learning.Rating, more bool) {
	if len(list) == 0 {
		fmt.Fprintln(w, "No response was rated 👎.")
		return
	}
	fmt.Fprintf(w, "%s, newest first:\n", countNoun(len(list), "response rated 👎", "responses rated 👎"))
	for _, r := range list {
		head := []string{stamp(r.UpdatedAt), flatLine(r.TesterID), "turn " + r.TurnID, "session " + r.SessionID}
		if r.Intent != "" {
			head = append(head, "intent "+flatLine(r.Intent))
		}
		if r.ContextType != "" {
			head = append(head, "context "+flatLine(r.ContextType))
		}
		fmt.Fprintf(w, "\n%s\n", strings.Join(head, " · "))
		writeField(w, "User:", r.UserMessage)
		writeField(w, "Response:", r.Response)
	}
	if more {
		fmt.Fprintln(w, "\nOlder ones are left out: --limit shows more.")
	}
}

func newFeedbackCorrections(opts *options) *cobra.Command {
	limit := 20
	cmd := &cobra.Command{
		Use:   "corrections [--limit 20]",
		Short: "List the corrections awaiting synthesis, with the turn each corrects",
		Long: `List the corrections not synthesised yet, oldest first: what testers said
should have been done differently after a 👎, with the user's message and the
response it corrects. hone learn synthesize learns from them.`,
		Example: `  hone feedback corrections
  hone feedback corrections --limit 100`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := listLimit(limit); err != nil {
				return err
			}
			return opts.withLearning(cmd, false, func(ctx context.Context, s *learning.Service) error {
				st, err := s.Stats(ctx, 1)
				if err != nil {
					return err
				}
				list, err := s.PendingCorrections(ctx, limit)
				if err != nil {
					return err
				}
				return termPrint(cmd.OutOrStdout(), func(w io.Writer) error {
					if len(list) == 0 {
						fmt.Fprintln(w, "No corrections await synthesis.")
						return nil
					}
					total := max(st.PendingCorrections, len(list))
					fmt.Fprintf(w, "%s awaiting synthesis, oldest first (hone learn synthesize learns from them):\n",
						countNoun(total, "correction", "corrections"))
					for _, c := range list {
						writeCorrection(w, c)
					}
					if total > len(list) {
						fmt.Fprintf(w, "\nShowing the oldest %d of %d: --limit shows more.\n", len(list), total)
					}
					return nil
				})
			})
		},
	}
	cmd.Flags().IntVar(&limit, "limit", limit, fmt.Sprintf("how many (at most %d)", learning.MaxList))
	return cmd
}

// writeCorrection writes a correction under a blank line: its head, the
// turn it corrects and its text.
func writeCorrection(w io.Writer, c *learning.Correction) {
	fmt.Fprintf(w, "\nCorrection %s · %s · %s · turn %s\n", c.ID, stamp(c.CreatedAt), flatLine(c.TesterID), c.TurnID)
	writeField(w, "User:", c.UserMessage)
	writeField(w, "Response:", c.Response)
	writeField(w, "Correction:", c.Text)
}

// fieldWidth is the width of the labels writeField writes.
const fieldWidth = 12

// writeField writes a labelled text indented by two spaces, its later
// lines indented under its first.
func writeField(w io.Writer, label, text string) {
	text = strings.TrimRight(text, "\n")
	fmt.Fprintf(w, "  %-*s%s\n", fieldWidth, label, strings.ReplaceAll(text, "\n", "\n  "+strings.Repeat(" ", fieldWidth)))
}

// stamp is a time as the feedback commands show it, in local time.
func stamp(t time.Time) string { return t.Local().Format("2006-01-02 15:04") }
