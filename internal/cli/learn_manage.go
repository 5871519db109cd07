package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/learning"
	"github.com/spf13/cobra"
)

func newLearnShow(opts *options) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show LEARNING_ID [--json]",
		Short: "Show a learning: every field, its status and the corrections it was learned from",
		Long: `Show a learning: its pattern, prompt adjustment, confidence, status and why it
is not applied when it is not, whom it applies to, where it comes from, and its
evidence: each correction it was learned from, with the user's message and the
response it corrects. --json prints the same as JSON.`,
		Example: `  hone learn show k3m9x2pq7rtw`,
		Args:    learningArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			return opts.withLearning(cmd, false, func(ctx context.Context, s *learning.Service) error {
				l, err := s.Learning(ctx, args[0])
				if err != nil {
					return learningError(err)
				}
				evidence, err := s.Evidence(ctx, l)
				if err != nil {
					return err
				}
				enabled, err := s.Enabled(ctx)
				if err != nil {
					return err
				}
				return termPrint(cmd.OutOrStdout(), func(w io.Writer) error {
					if asJSON {
						return writeJSON(w, map[string]any{"learning": l, "evidence": evidence})
					}
					writeLearning(w, l, evidence, enabled, s.Threshold())
					return nil
				})
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the learning and its evidence as JSON")
	return cmd
}

// labelWidth is the width of the labels of hone learn show.
const labelWidth = 19

// writeLabel writes a labelled text, its later lines indented under its
// first.
func writeLabel(w io.Writer, label, text string) {
	text = strings.TrimRight(text, "\n")
	fmt.Fprintf(w, "%-*s%s\n", labelWidth, label, strings.ReplaceAll(text, "\n", "\n"+strings.Repeat(" ", labelWidth)))
}

func writeLearning(w io.Writer, l *learning.Learning, evidence []*learning.Correction, enabled bool, threshold float64) {
	writeLabel(w, "ID:", l.ID)
	writeLabel(w, "Pattern:", l.Pattern)
	writeLabel(w, "Prompt adjustment:", l.PromptAdjustment)
	writeLabel(w, "Confidence:", fmt.Sprintf("%.2f", l.Confidence))
	writeLabel(w, "Status:", statusText(l, enabled, threshold))
	if l.Reason != "" {
		writeLabel(w, "Reason:", l.Reason)
	}
	if l.ConflictsWith != "" {
		writeLabel(w, "Conflicts with:", l.ConflictsWith)
	}
	applies := "everyone"
	if l.TesterID != "" {
		applies = "tester " + l.TesterID
	}
	writeLabel(w, "Applies to:", applies)
	switch {
	case l.Manual:
		writeLabel(w, "Source:", "added by hand")
	case l.RunID != "":
		writeLabel(w, "Source:", "synthesis "+l.RunID)
	}
	writeLabel(w, "Created:", stamp(l.CreatedAt))
	writeLabel(w, "Updated:", stamp(l.UpdatedAt))
	if len(evidence) == 0 {
		fmt.Fprintln(w, "\nEvidence: none (no correction).")
		return
	}
	fmt.Fprintf(w, "\nEvidence: %s\n", countNoun(len(evidence), "correction", "corrections"))
	for _, c := range evidence {
		writeCorrection(w, c)
	}
}

// statusText says what a learning's status means.
func statusText(l *learning.Learning, enabled bool, threshold float64) string {
	switch l.Status {
	case learning.StatusActive:
		if !enabled {
			return "active, but learnings are disabled: not applied (hone learn enable)"
		}
		return "active: applied to the prompt"
	case learning.StatusBelowThreshold:
		return fmt.Sprintf("below threshold: not applied (the threshold is %.2f)", threshold)
	case learning.StatusConflict:
		return "in conflict with another learning: not applied until one of the two is kept (hone learn keep " + l.ID + ")"
	case learning.StatusRejected:
		return "rejected: it contradicts the protected rules, and is never applied"
	}
	return l.Status
}

func newLearnAdd(opts *options) *cobra.Command {
	var in learning.LearningInput
	confidence := 1.0
	cmd := &cobra.Command{
		Use:   `add "TEXT" [--pattern P] [--tester ID] [--confidence 1.0]`,
		Short: "Add a learning by hand and print its id",
		Long: `Add a learning by hand: TEXT is the prompt adjustment, the instruction added
to the system prompt. --pattern names what it answers (default: the text
itself, cut short); --tester makes it apply to that tester only (default:
everyone); --confidence defaults to 1.0, so it applies at once. It prints the
new learning's id; one that says what another already says is refused.`,
		Example: `  hone learn add "Always respond in Portuguese when I write in Portuguese"
  hone learn add "Use formal language." --pattern "User prefers formal language" --tester meg`,
		Args: func(_ *cobra.Command, args []string) error {
			if strings.TrimSpace(strings.Join(args, "")) == "" {
				return errors.New(`give the learning's text: hone learn add "Always include event times"`)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			in.PromptAdjustment = strings.Join(args, " ")
			in.Confidence = &confidence
			return opts.withLearning(cmd, false, func(ctx context.Context, s *learning.Service) error {
				l, err := s.Add(ctx, in)
				if err != nil {
					return addError(err)
				}
				fmt.Fprintln(cmd.OutOrStdout(), l.ID)
				return termPrint(opts.stderr, func(w io.Writer) error {
					_, err := fmt.Fprintf(w, "Added learning %s: [%.2f] %s\n", l.ID, l.Confidence, listed(l))
					return err
				})
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&in.Pattern, "pattern", "", "what the learning answers, in one short sentence")
	f.StringVar(&in.TesterID, "tester", "", "the tester it applies to (default: everyone)")
	f.Float64Var(&confidence, "confidence", confidence, "confidence from 0 to 1")
	return cmd
}

// addError names the flag or argument of a field error of Add.
func addError(err error) error {
	var he *hone.Error
	if !errors.As(err, &he) || he.Field == "" {
		return err
	}
	name := map[string]string{"prompt_adjustment": "the text", "pattern": "--pattern", "tester_id": "--tester",
		"confidence": "--confidence"}[he.Field]
	if name == "" {
		return err
	}
	c := *he
	c.Message = name + ": " + he.Message
	return &c
}

func newLearnRemove(opts *options) *cobra.Command {
	return &cobra.Command{
		Use:   "remove LEARNING_ID",
		Short: "Remove a learning",
		Long: `Remove a learning for good: it leaves the prompt, and a learning that was in
conflict with it is in conflict no more (and applies, when its confidence is
high enough). hone learn disable switches all learnings off without removing
any.`,
		Example: `  hone learn remove k3m9x2pq7rtw`,
		Args:    learningArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			return opts.withLearning(cmd, false, func(ctx context.Context, s *learning.Service) error {
				l, err := s.Learning(ctx, args[0])
				if err != nil {
					return learningError(err)
				}
				all, err := s.Learnings(ctx, learning.LearningFilter{})
				if err != nil {
					return err
				}
				if err := s.Remove(ctx, l.ID); err != nil {
					return learningError(err)
				}
				return termPrint(cmd.OutOrStdout(), func(w io.Writer) error {
					fmt.Fprintf(w, "Removed learning %s: %s\n", l.ID, flatLine(l.Pattern))
					for _, o := range all {
						if o.Status == learning.StatusConflict && o.ConflictsWith == l.ID {
							fmt.Fprintf(w, "Learning %s is in conflict no more: %s\n", o.ID, flatLine(o.Pattern))
						}
					}
					return nil
				})
			})
		},
	}
}

func newLearnKeep(opts *options) *cobra.Command {
	return &cobra.Command{
		Use:   "keep LEARNING_ID",
		Short: "Settle a conflict in a learning's favour: the learnings it conflicts with are removed",
		Long: `Settle the conflicts of a learning in its favour: the learning it contradicts,
and the learnings that contradict it, are removed, and it applies (when its
confidence is high enough). A learning in no conflict is refused.`,
		Example: `  hone learn keep k3m9x2pq7rtw`,
		Args:    learningArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			return opts.withLearning(cmd, false, func(ctx context.Context, s *learning.Service) error {
				l, err := s.Keep(ctx, args[0])
				if err != nil {
					return learningError(err)
				}
				return termPrint(cmd.OutOrStdout(), func(w io.Writer) error {
					fmt.Fprintf(w, "Kept learning %s: [%.2f] %s\nThe learnings in conflict with it are removed.\n",
						l.ID, l.Confidence, listed(l))
					return nil
				})
			})
		},
	}
}

// newLearnSwitch makes hone learn enable (on) or hone learn disable.
func newLearnSwitch(opts *options, on bool) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "disable",
		Short: "Apply no learning to the prompt, keeping them all stored (for debugging)",
		Long: `Switch learnings off: from now on no learning is applied to the system prompt,
on every server of the database. They all stay stored, and synthesis and
hone learn add go on; hone learn enable applies the active ones again.`,
		Example: `  hone learn disable`,
		Args:    cobra.NoArgs,
	}
	done := "Learnings are disabled: none is applied to the prompt. They stay stored; hone learn enable applies them again."
	if on {
		cmd.Use, cmd.Example = "enable", "  hone learn enable"
		cmd.Short = "Apply the active learnings to the prompt again"
		cmd.Long = `Switch learnings back on after hone learn disable: the active learnings (at
the threshold, in no conflict, not rejected) are applied to the system prompt
again. Learnings are on unless disabled.`
		done = "Learnings are enabled: the active ones are applied to the prompt (hone learn list shows them)."
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return opts.withLearning(cmd, false, func(ctx context.Context, s *learning.Service) error {
			if err := s.SetEnabled(ctx, on); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), done)
			return nil
		})
	}
	return cmd
}
