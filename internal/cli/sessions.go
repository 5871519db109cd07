package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/honehq/hone/internal/capture"
	"github.com/spf13/cobra"
)

func newSessions(opts *options) *cobra.Command {
	var f capture.SessionFilter
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List tuning sessions, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := opts.openDB(cmd.Context())
			if err != nil {
				return err
			}
			defer db.Close()
			list, err := db.Capture().ListSessions(cmd.Context(), f)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SESSION\tTESTER\tPROMPT VERSION\tTURNS\tIMPROVEMENTS\tSTARTED\tENDED")
			for _, s := range list {
				end := "open"
				if s.End != nil {
					end = s.End.Format("2006-01-02 15:04")
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\n", s.ID, cell(s.TesterID), dash(cell(s.PromptVersion)),
					s.TotalTurns, s.TotalImprovements, s.Start.Format("2006-01-02 15:04"), end)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&f.TesterID, "tester", "", "only this tester's sessions")
	cmd.Flags().IntVar(&f.Limit, "limit", 50, "how many sessions")
	return cmd
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
