package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/alerts"
	"github.com/honehq/hone/internal/storage"
	"github.com/spf13/cobra"
)

func newAlerts(opts *options) *cobra.Command {
	status := newAlertsStatus(opts)
	cmd := &cobra.Command{
		Use:   "alerts",
		Short: "The reach-out budget of proactive alerts: reactions by type, paused types, a conversation's budget",
		Long: `Applications that send proactive alerts (reminders, warnings) ask hone before
each one (POST /api/v1/alerts/permit), record what they sent (POST
/api/v1/alerts) and pass on the testers' reactions: ack, 👍 or 👎, from their
own buttons (POST /api/v1/alerts/{id}/feedback) or as !ack, 👍 and 👎 sent in
the chat right after the alert.

Each conversation's alert_quality_score is the mean value of its latest 20
alerts that count: a 👍 is worth 1, an ack 0.5, a 👎 −1, and an alert nobody
reacted to within 24 hours 0. Its budget of alerts in any 24 hours is
clamp(round(base × (1 + 0.5 × score)), min, max): 5 by default, from 3 when
every alert gets a 👎 to 8 when every one gets a 👍, within 1 and 10
(HONE_ALERT_BUDGET, HONE_ALERT_BUDGET_MIN, HONE_ALERT_BUDGET_MAX). A type whose
latest 3 reactions (HONE_ALERT_PAUSE_AFTER) are all 👎 is paused until hone
alerts enable TYPE.

Without a subcommand, hone alerts shows the status.`,
		Example: `  hone alerts status
  hone alerts status --conversation c42 --type reminder
  hone alerts enable price_drop`,
		Args: cobra.NoArgs,
		RunE: status.RunE,
	}
	cmd.AddCommand(status, newAlertsEnable(opts))
	return cmd
}

func newAlertsStatus(opts *options) *cobra.Command {
	var conversation, typ string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status [--conversation ID [--type TYPE]] [--json]",
		Short: "The budget rule, each alert type's reactions and pause, and a conversation's budget",
		Long: `Show the budget rule in force, then each alert type that was sent or paused:
how many alerts of it were sent, the reactions they got, and whether it is
paused and why. With --conversation, also what POST /api/v1/alerts/permit
answers for that conversation now (for --type, or the type "any"): its
alert_quality_score, its budget, the alerts it got in the last 24 hours, and
whether one may be sent.`,
		Example: `  hone alerts status
  hone alerts status --conversation c42 --type reminder --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if typ != "" && conversation == "" {
				return hone.FieldError("type", "--type needs --conversation: the budget is a conversation's")
			}
			return opts.withAlerts(cmd, func(ctx context.Context, s *alerts.Service) error {
				types, err := s.AlertTypes(ctx)
				if err != nil {
					return err
				}
				var p *alerts.Permit
				if conversation != "" {
					if p, err = s.Permit(ctx, alerts.PermitInput{ConversationID: conversation, Type: cmp.Or(typ, "any")}); err != nil {
						return err
					}
				}
				rules := s.BudgetRules()
				return termPrint(cmd.OutOrStdout(), func(w io.Writer) error {
					if asJSON {
						out := map[string]any{"formula": rules.Formula(), "types": types}
						if p != nil {
							out["permit"] = p
						}
						return writeJSON(w, out)
					}
					writeAlertStatus(w, rules, types, p)
					return nil
				})
			})
		},
	}
	cmd.Flags().StringVar(&conversation, "conversation", "", "show this conversation's budget and score")
	cmd.Flags().StringVar(&typ, "type", "", "the alert type to ask the permit for (with --conversation)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return cmd
}

func writeAlertStatus(w io.Writer, r alerts.BudgetRules, types []*alerts.AlertType, p *alerts.Permit) {
	fmt.Fprintf(w, "Budget per conversation in 24 hours: %s\n", r.Formula())
	fmt.Fprintf(w, "Score: the mean of the latest %d alerts: 👍 %g, ack %g, 👎 %g, no reaction within %s %g.\n",
		r.Window, alerts.UpValue, alerts.AckValue, alerts.DownValue, hoursText(r.Grace), alerts.IgnoredValue)
	fmt.Fprintf(w, "A type is paused after %d 👎 in a row, until hone alerts enable TYPE.\n\n", r.PauseAfter)
	if len(types) == 0 {
		fmt.Fprintln(w, "No alert recorded yet: applications record them with POST /api/v1/alerts.")
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "Type\tSent\tUp\tAck\tDown\tState")
		for _, t := range types {
			state := "active"
			if t.Paused {
				state = "paused"
				if t.PausedAt != nil {
					state += " since " + t.PausedAt.UTC().Format("2006-01-02 15:04Z")
				}
				state += ": " + t.Reason + " (hone alerts enable " + t.Type + ")"
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\n", t.Type, t.Sent, t.Up, t.Ack, t.Down, state)
		}
		tw.Flush()
	}
	if p == nil {
		return
	}
	verdict := "may get an alert of type " + p.Type + " now"
	if !p.Allowed {
		verdict = "may not get an alert of type " + p.Type + " now"
	}
	fmt.Fprintf(w, "\nConversation %s %s.\n%s\n", p.ConversationID, verdict, p.Reason)
	fmt.Fprintf(w, "alert_quality_score %.2f over %d alerts; budget %d; sent in the last 24 hours %d; remaining %d\n",
		p.Score, p.Scored, p.Budget, p.Sent, p.Remaining)
}

// hoursText is a duration in hours, as "24 hours".
func hoursText(d time.Duration) string {
	if h := d.Hours(); h == float64(int(h)) {
		if h == 1 {
			return "1 hour"
		}
		return fmt.Sprintf("%d hours", int(h))
	}
	return d.String()
}

func newAlertsEnable(opts *options) *cobra.Command {
	return &cobra.Command{
		Use:   "enable TYPE",
		Short: "Resume an alert type paused after consistently negative reactions",
		Long: `Resume an alert type that was paused because its latest reactions were all
👎: POST /api/v1/alerts/permit allows it again, within each conversation's
budget. Only reactions given from now on count towards pausing it again.`,
		Example: `  hone alerts enable price_drop`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return opts.withAlerts(cmd, func(ctx context.Context, s *alerts.Service) error {
				t, err := s.EnableAlertType(ctx, args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Alerts of type %s are enabled again; only reactions from now on can pause them.\n", t.Type)
				return nil
			})
		},
	}
}

// withAlerts runs fn with the alerts capability over the configured database.
func (o *options) withAlerts(cmd *cobra.Command, fn func(ctx context.Context, s *alerts.Service) error) error {
	ctx := cmd.Context()
	return o.withDB(ctx, func(db *storage.DB) error {
		return fn(ctx, alerts.NewService(db.Alerts(), db.Capture(), alerts.Options{Budget: o.cfg.Learn.BudgetRules()}))
	})
}
