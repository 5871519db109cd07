package cli

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/suggestions"
	"github.com/honehq/hone/internal/timebound"
	"github.com/spf13/cobra"
)

func newSuggestions(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "suggestions",
		Short: "Suggestion tracking: import records, answer the spec's questions, export training sets, forget a session",
		Long: `Applications that show LLM suggestions (autocomplete, next commands, reply
suggestions) record each round with hone's Go library, github.com/honehq/hone/suggest:
what went to the model, what it suggested, which suggestions the person looked
at and what they submitted. The library appends them to
~/.hone/session_history/<server>/<session>/suggestion_history.jsonl (when
HONE_SUGGESTION_HISTORY=1) or sends them to POST /api/v1/suggestions.

hone suggestions import reads those files into hone; stats answers the
questions of the suggestion-tracking spec; export writes training sets; forget
deletes a session's records and its history directory.`,
		Example: `  hone suggestions import ~/.hone/session_history
  hone suggestions stats --version v2 --since 7d
  hone suggestions export --format dpo > pairs.jsonl
  hone suggestions forget --session my-project`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newSuggestionsImport(opts), newSuggestionsStats(opts), newSuggestionsExport(opts), newSuggestionsForget(opts))
	return cmd
}

// withSuggestions runs fn with suggestion tracking over the configured
// database.
func (o *options) withSuggestions(cmd *cobra.Command, fn func(ctx context.Context, s *suggestions.Service) error) error {
	return o.withDB(cmd.Context(), func(db *storage.DB) error {
		return fn(cmd.Context(), suggestions.NewService(db.Suggestions(), suggestions.Options{HistoryRoot: o.cfg.SuggestionRoot}))
	})
}

// suggestionFlags are the filters of stats and export.
type suggestionFlags struct {
	server, session, version, model, since, until, match string
}

func (f *suggestionFlags) add(cmd *cobra.Command, records bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.server, "server", "", "only the records of this server")
	fl.StringVar(&f.version, "version", "", "only the records of this suggestion_node_version")
	fl.StringVar(&f.since, "since", "", "only the records submitted since: a time, a date (2026-01-10) or an age (24h, 7d)")
	fl.StringVar(&f.until, "until", "", "only the records submitted before this time, date or age")
	if records {
		fl.StringVar(&f.session, "session", "", "only the records of this session")
		fl.StringVar(&f.model, "model", "", "only the records of this model")
		fl.StringVar(&f.match, "match-type", "", "only the records of this match type: exact, partial, prefix or none")
	}
}

func (f *suggestionFlags) filter() (suggestions.Filter, error) {
	out := suggestions.Filter{Server: f.server, Session: f.session, Version: f.version, Model: f.model, MatchType: f.match}
	var err error
	now := time.Now()
	if out.Since, err = timebound.Parse("since", f.since, now); err != nil {
		return out, err
	}
	if out.Until, err = timebound.Parse("until", f.until, now); err != nil {
		return out, err
	}
	return out, suggestions.CheckFilter(out)
}

func newSuggestionsImport(opts *options) *cobra.Command {
	return &cobra.Command{
		Use:   "import PATH",
		Short: "Import suggestion records from a JSONL file or a whole session_history tree",
		Long: `Import the records of a suggestion_history.jsonl file, or of every .jsonl file
below a directory (a session_history tree). Records carry an id, so importing
the same files again adds nothing. A line that is not a valid record (a torn
last line after a crash, or any other) is reported with its file and line
number, and the others are imported.`,
		Example: `  hone suggestions import ~/.hone/session_history
  hone suggestions import ./suggestion_history.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return opts.withSuggestions(cmd, func(ctx context.Context, s *suggestions.Service) error {
				out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
				res, warnings, err := s.Import(ctx, args[0], func(file string, r *suggestions.Result) {
					fmt.Fprintf(errOut, "%s: %d new, %d already imported, %d invalid", file, r.Accepted, r.Duplicates, r.Refused())
					if r.ErrorsNotListed > 0 {
						fmt.Fprintf(errOut, " (the first %d listed)", len(r.Errors))
					}
					fmt.Fprintln(errOut)
				})
				if err != nil {
					return err
				}
				for _, w := range warnings {
					fmt.Fprintf(errOut, "skipped %s\n", w)
				}
				fmt.Fprintf(out, "Imported %d records (%d already imported, %d invalid lines skipped).\n", res.Accepted, res.Duplicates, res.Refused())
				return nil
			})
		},
	}
}

func newSuggestionsStats(opts *options) *cobra.Command {
	var f suggestionFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stats [--version V] [--server S] [--since T] [--until T] [--json]",
		Short: "Acceptance, position bias, time to action, cycling and the negative signals",
		Long: `Answer the suggestion-tracking spec's questions about the records: how many
suggestions are accepted (exact, partial or prefix) and how many exactly, by
match type, by position, by suggestion version, model and temperature; how
long people think (time to action p50/p90/p99, within 1%); how much they
cycle; whether more context or more tokens go with better suggestions; and the
five negative signals: viewed_but_rejected, long_think_rejected (no match
after 10 s or more), many_cycles (5 presses or more), partial_match and
cycled_back. The time filters count whole days (UTC). --json prints what
GET /api/v1/suggestions/stats answers.`,
		Example: `  hone suggestions stats
  hone suggestions stats --version v2 --since 7d`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			filter, err := f.filter()
			if err != nil {
				return err
			}
			return opts.withSuggestions(cmd, func(ctx context.Context, s *suggestions.Service) error {
				st, err := s.Stats(ctx, filter)
				if err != nil {
					return err
				}
				return termPrint(cmd.OutOrStdout(), func(w io.Writer) error {
					if asJSON {
						return writeJSON(w, st)
					}
					writeSuggestionStats(w, st)
					return nil
				})
			})
		},
	}
	f.add(cmd, false)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the statistics as JSON")
	return cmd
}

func pct(r float64) string { return fmt.Sprintf("%.1f%%", 100*r) }

func writeSuggestionStats(w io.Writer, st *suggestions.Stats) {
	if st.Total == 0 {
		fmt.Fprintln(w, "No suggestion records match: applications send them to POST /api/v1/suggestions, or hone suggestions import reads their JSONL.")
		return
	}
	fmt.Fprintf(w, "Records: %d\nAccepted: %d (%s; exact %s)\n", st.Total, st.Accepted, pct(st.AcceptanceRate), pct(st.ExactRate))
	fmt.Fprintf(w, "By match type: exact %d, partial %d, prefix %d, none %d\n", st.ByMatchType["exact"], st.ByMatchType["partial"],
		st.ByMatchType["prefix"], st.ByMatchType["none"])
	fmt.Fprintf(w, "Accepted by position: %s\n", counts(st.ByPosition, "#"))
	fmt.Fprintf(w, "Time to action: p50 %.0f ms, p90 %.0f ms, p99 %.0f ms\n", st.TimeToActionMS.P50, st.TimeToActionMS.P90, st.TimeToActionMS.P99)
	fmt.Fprintf(w, "Cycle count: %s\n", counts(st.CycleCount, ""))
	fmt.Fprintf(w, "Negative signals: ")
	for i, name := range suggestions.Signals {
		if i > 0 {
			fmt.Fprint(w, ", ")
		}
		fmt.Fprintf(w, "%s %d", name, st.NegativeSignals[name])
	}
	fmt.Fprintf(w, "\n  (long_think_rejected: no match after %.0f ms or more; many_cycles: %d presses or more)\n",
		st.Thresholds.LongThinkMS, st.Thresholds.ManyCycles)
	for _, g := range []struct {
		title  string
		groups map[string]*suggestions.Group
		order  []string
	}{{"Version", st.ByVersion, nil}, {"Model", st.ByModel, nil}, {"Temperature", st.ByTemperature, nil},
		{"Context blocks", st.ByContextSize, suggestions.ContextClasses}, {"Tokens", st.ByTokens, suggestions.TokenClasses}} {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "%s\tRecords\tAccepted\tExact\tNone\n", g.title)
		keys := g.order
		if keys == nil {
			keys = slices.Sorted(maps.Keys(g.groups))
		}
		for _, k := range keys {
			grp := g.groups[k]
			if grp == nil {
				continue
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\n", cmp.Or(k, "(none)"), grp.Total, pct(grp.AcceptanceRate), pct(grp.ExactRate), grp.ByMatchType["none"])
		}
		tw.Flush()
	}
}

// counts writes a map of counts in key order (numbers as numbers).
func counts(m map[string]int64, prefix string) string {
	keys := slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s%s: %d", prefix, k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func newSuggestionsExport(opts *options) *cobra.Command {
	var f suggestionFlags
	var format, output string
	var accepted bool
	cmd := &cobra.Command{
		Use:   "export [--format sft|ranking|dpo] [filters] [-o FILE]",
		Short: "Write a training set: sft (chat fine-tuning), ranking, or dpo preference pairs",
		Long: `Write the records as JSONL training data:
  sft      OpenAI chat fine-tuning: the recorded request's messages, then the
           submitted input as the assistant's message; exact matches only
           unless --accepted (records without request messages are skipped)
  ranking  the context, the suggestions and the index of the one taken
  dpo      {prompt, chosen, rejected}: the request's messages, the submitted
           input, and each suggestion viewed and not taken
The format is sft unless --format says otherwise. The count of lines written
and records skipped goes to standard error.`,
		Example: `  hone suggestions export --format sft -o sft.jsonl
  hone suggestions export --format dpo --version v2 > pairs.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			filter, err := f.filter()
			if err != nil {
				return err
			}
			if !slices.Contains(suggestions.Formats, format) {
				return hone.FieldError("format", "--format must be sft, ranking or dpo, not %q", format)
			}
			return opts.withSuggestions(cmd, func(ctx context.Context, s *suggestions.Service) error {
				var w io.Writer = cmd.OutOrStdout()
				var file *os.File
				if output != "" && output != "-" {
					if file, err = os.Create(output); err != nil {
						return hone.FieldError("output", "cannot write %s: %v", output, err)
					}
					defer file.Close()
					w = file
				}
				bw := bufio.NewWriterSize(w, 64<<10)
				out, err := s.Export(ctx, bw, suggestions.ExportOptions{Format: format, Filter: filter, Accepted: accepted})
				if err != nil {
					return err
				}
				if err := bw.Flush(); err != nil {
					return err
				}
				if file != nil {
					if err := file.Close(); err != nil {
						return err
					}
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "Wrote %d %s lines (%d records skipped).\n", out.Lines, format, out.Skipped)
				return nil
			})
		},
	}
	f.add(cmd, true)
	cmd.Flags().StringVar(&format, "format", suggestions.DefaultFormat, "sft, ranking or dpo")
	cmd.Flags().BoolVar(&accepted, "accepted", false, "sft: every accepted record (partial and prefix too), not only the exact ones")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write to this file instead of standard output")
	return cmd
}

func newSuggestionsForget(opts *options) *cobra.Command {
	var session, server string
	cmd := &cobra.Command{
		Use:   "forget --session S [--server X]",
		Short: "Delete a session's suggestion records and its JSONL history directory",
		Long: `Delete every suggestion record of a session (of one server with --server,
else of every server) from the database, with the statistics they counted in,
and the session's directory of the JSONL history (HONE_SUGGESTION_ROOT, by
default ~/.hone/session_history).`,
		Example: `  hone suggestions forget --session my-project --server local`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return opts.withSuggestions(cmd, func(ctx context.Context, s *suggestions.Service) error {
				out, err := s.Forget(ctx, server, session)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Forgot %d records of session %s.\n", out.Records, session)
				for _, d := range out.Directories {
					fmt.Fprintf(cmd.OutOrStdout(), "Removed %s\n", d)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&session, "session", "", "the session to forget (required)")
	cmd.Flags().StringVar(&server, "server", "", "only on this server")
	return cmd
}
