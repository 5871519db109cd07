package cli

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/honehq/hone/internal/quality"
	"github.com/honehq/hone/internal/scoring"
	"github.com/spf13/cobra"
)

func newMetrics(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "metrics",
		Short: "Response metrics: a session's means, prompt-version comparisons and regressions",
		Long: `Response metrics of the recorded turns. Every turn is scored with the objective
metrics when it is recorded; !score (or POST /api/v1/turns/{id}/scores) adds
human scores. Means leave N/A values out. Significance is decided by a 95%
bootstrap confidence interval of the difference of means together with the
Mann–Whitney U test.`,
	}
	// run opens the database and the scoring service around fn.
	run := func(cmd *cobra.Command, fn func(ctx context.Context, s *scoring.Service, w io.Writer) error) error {
		set, err := quality.Open(opts.cfg.MetricsFile)
		if err != nil {
			return err
		}
		db, err := opts.openDB(cmd.Context())
		if err != nil {
			return err
		}
		defer db.Close()
		out := termOut(cmd.OutOrStdout())
		if err := fn(cmd.Context(), scoring.New(db.Scoring(), db.Capture(), set), out); err != nil {
			return err
		}
		if tw, ok := out.(*terminalWriter); ok {
			return tw.Flush()
		}
		return nil
	}
	cmd.PersistentFlags().StringVar(&opts.cfg.MetricsFile, "metrics", opts.cfg.MetricsFile, "metric set: a file, or a built-in set (general, the default, or era-hr) (HONE_METRICS_FILE); orders the metrics")
	cmd.AddCommand(&cobra.Command{
		Use:   "session ID",
		Short: "The mean of each metric and composite score over a session's turns",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd, func(ctx context.Context, s *scoring.Service, w io.Writer) error {
				r, err := s.SessionReport(ctx, args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "Session %s, prompt version %s, %d turns\n\n", r.SessionID, dash(r.PromptVersion), r.Turns)
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "METRIC\tN\tMEAN")
				for _, m := range r.Metrics {
					fmt.Fprintf(tw, "%s\t%d\t%s\n", m.Name, m.N, scoring.Format(m.Mean))
				}
				return tw.Flush()
			})
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "compare VERSION_A VERSION_B",
		Short: "Compare prompt version B with version A, metric by metric",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd, func(ctx context.Context, s *scoring.Service, w io.Writer) error {
				c, err := s.Compare(ctx, args[0], args[1])
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "A = %s (%d turns), B = %s (%d turns)\nTest: %s\n\n", c.VersionA, c.TurnsA, c.VersionB, c.TurnsB, c.Test)
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "METRIC\tN A\tMEAN A\tN B\tMEAN B\tB − A\t95% CI\tP\tSIGNIFICANT")
				for _, d := range c.Metrics {
					writeDiff(tw, d.Name, d)
					fmt.Fprintln(tw)
				}
				return tw.Flush()
			})
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "regressions",
		Short: "Prompt versions whose overall score fell significantly below the version before",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd, func(ctx context.Context, s *scoring.Service, w io.Writer) error {
				r, err := s.Regressions(ctx)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "Prompt versions in order of their first session; overall_quality_score of each against the one before.\nTest: %s\n\n", r.Test)
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "STEP\tN A\tMEAN A\tN B\tMEAN B\tB − A\t95% CI\tP\tSIGNIFICANT\tREGRESSION")
				for _, st := range r.Steps {
					writeDiff(tw, dash(st.Previous)+" → "+dash(st.Version), st.Overall)
					if st.Regressed {
						fmt.Fprint(tw, "\tREGRESSED")
					}
					fmt.Fprintln(tw)
				}
				if err := tw.Flush(); err != nil {
					return err
				}
				if len(r.Regressions) == 0 {
					fmt.Fprintln(w, "\nNo regressions.")
				} else {
					fmt.Fprintf(w, "\n%d regression(s):\n", len(r.Regressions))
					for _, st := range r.Regressions {
						fmt.Fprintf(w, "- %s fell below %s: overall %s → %s (p = %.4f)\n", dash(st.Version), dash(st.Previous),
							scoring.Format(st.Overall.MeanA), scoring.Format(st.Overall.MeanB), st.Overall.PValue)
					}
				}
				return nil
			})
		},
	})
	return cmd
}

// writeDiff writes one comparison row without its line end.
func writeDiff(tw *tabwriter.Writer, name string, d scoring.Diff) {
	ci := "—"
	if d.CILow != nil {
		ci = fmt.Sprintf("[%+.2f, %+.2f]", *d.CILow, *d.CIHigh)
	}
	diff := "N/A"
	if d.Difference != nil {
		diff = fmt.Sprintf("%+.2f", *d.Difference)
	}
	sig := "no"
	if d.Significant {
		sig = "yes"
	}
	fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%s\t%s\t%s\t%.4f\t%s", name, d.NA, scoring.Format(d.MeanA), d.NB, scoring.Format(d.MeanB), diff, ci, d.PValue, sig)
}
