package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/llm"
	"github.com/spf13/cobra"
)

func newLearn(opts *options) *cobra.Command {
	list := newLearnList(opts)
	cmd := &cobra.Command{
		Use:   "learn",
		Short: "Learnings from feedback: synthesise, list, show, add, remove, keep, disable, enable",
		Long: `Manage what hone learns from feedback. hone learn synthesize has the LLM
(HONE_LLM_*) turn the corrections testers gave after a 👎 into learning
statements; those with a confidence of HONE_LEARN_THRESHOLD (0.7) or more that
neither contradict the protected rules of the base prompt nor conflict with
another learning are applied: their prompt adjustments become the "User
Preferences (Learned)" section of the system prompt of every chat.
Without a subcommand, hone learn lists the learnings.

Printed to a terminal, what testers and the model wrote is shown with the
characters that would act on it escaped, as \u001b; to a file or a pipe it is
exact.`,
		Example: `  hone learn synthesize
  hone learn list
  hone learn show k3m9x2pq7rtw
  hone learn add "Always respond in Portuguese when I write in Portuguese"
  hone learn remove k3m9x2pq7rtw`,
		Args: cobra.NoArgs,
		RunE: list.RunE,
	}
	cmd.AddCommand(newLearnSynthesize(opts), list, newLearnShow(opts), newLearnAdd(opts), newLearnRemove(opts),
		newLearnKeep(opts), newLearnSwitch(opts, false), newLearnSwitch(opts, true))
	return cmd
}

// learningArg requires one argument, the learning's id.
func learningArg(_ *cobra.Command, args []string) error {
	switch {
	case len(args) == 0 || strings.TrimSpace(args[0]) == "":
		return errors.New("give the learning's id (hone learn list shows them)")
	case len(args) > 1:
		return fmt.Errorf("too many arguments: give only the learning's id, not %q", args)
	}
	return nil
}

// learningError says where the ids are when a learning is not found.
func learningError(err error) error {
	if hone.ErrorCode(err) == hone.ENOTFOUND {
		return hone.Errorf(hone.ENOTFOUND, "%s (hone learn list shows the ids)", hone.ErrorMessage(err))
	}
	return err
}

// statusNote is what a list adds after a learning that is not applied, as
// the chat's learnings command does.
func statusNote(status string) string {
	switch status {
	case learning.StatusBelowThreshold:
		return " (below threshold, not applied)"
	case learning.StatusConflict:
		return " (conflicts with another learning, not applied)"
	case learning.StatusRejected:
		return " (contradicts the protected rules, not applied)"
	}
	return ""
}

// listed is a learning's pattern as lists show it: on one line, with whom
// it applies to when that is one tester, and its status note.
func listed(l *learning.Learning) string {
	s := flatLine(l.Pattern)
	if l.TesterID != "" {
		s += " (tester " + flatLine(l.TesterID) + ")"
	}
	return s + statusNote(l.Status)
}

func newLearnSynthesize(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "synthesize [--protected FILE]",
		Short: "Learn from the corrections awaiting synthesis, here and now",
		Long: `Have the LLM read the corrections awaiting synthesis and turn the patterns in
them into learnings, each with a confidence, then check the new ones against
the protected rules (--protected or HONE_LEARN_PROTECTED, or the lines of the first
HONE_PROMPT_FILE between <!-- hone:protected --> markers) and the existing
learnings. The corrections are marked processed when the learnings are stored,
and only then: a failed synthesis exits with 1 and leaves them all waiting.
One synthesis runs at a time, here or on a server of the same database.

` + llm.ConfigHelp,
		Example: `  hone learn synthesize
  hone learn synthesize --protected RULES.md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return opts.withLearning(cmd, true, func(ctx context.Context, s *learning.Service) error {
				if ok, err := s.LLMConfigured(); !ok {
					why := "hone learn synthesize needs an LLM to learn from the corrections."
					if opts.cfg.LLM.Configured() {
						why = "hone learn synthesize needs an LLM, and HONE_LLM_* do not set one up: " + hone.ErrorMessage(err)
					}
					fmt.Fprintf(opts.stderr, "%s\n\n%s", why, llm.ConfigHelp)
					return exitError{code: 2}
				}
				st, err := s.Stats(ctx, 1)
				if err != nil {
					return err
				}
				out := cmd.OutOrStdout()
				if st.PendingCorrections == 0 {
					fmt.Fprintln(out, "No corrections await synthesis: testers give them after a 👎 in the chat.")
					return nil
				}
				fmt.Fprintf(out, "Analyzing %s...\n", countNoun(st.PendingCorrections, "unprocessed correction", "unprocessed corrections"))
				run, err := s.SynthesizeNow(ctx)
				if err != nil {
					return err
				}
				if run.Status == learning.RunFailed {
					_ = termPrint(opts.stderr, func(w io.Writer) error {
						_, err := fmt.Fprintf(w, "Synthesis %s failed: %s\nNo correction is marked processed; run hone learn synthesize again.\n",
							run.ID, run.Error)
						return err
					})
					return exitError{code: 1}
				}
				return termPrint(out, func(w io.Writer) error {
					writeRun(w, run)
					return nil
				})
			})
		},
	}
	cmd.Flags().StringVar(&opts.cfg.Learn.Protected, "protected", opts.cfg.Learn.Protected, "file of rules no learning may weaken (HONE_LEARN_PROTECTED)")
	return cmd
}

// writeRun writes the learnings a synthesis made, then those it added
// evidence to.
func writeRun(w io.Writer, run *learning.Run) {
	var fresh, merged []*learning.Learning
	conflict := false
	for _, l := range run.Learnings {
		if l.RunID == run.ID {
			fresh = append(fresh, l)
		} else {
			merged = append(merged, l)
		}
		conflict = conflict || l.Status == learning.StatusConflict
	}
	if len(fresh) == 0 {
		fmt.Fprintln(w, "Generated 0 new learnings.")
	} else {
		fmt.Fprintf(w, "Generated %s:\n", countNoun(len(fresh), "new learning", "new learnings"))
		writeItems(w, fresh)
	}
	if len(merged) > 0 {
		fmt.Fprintf(w, "Added evidence to %s:\n", countNoun(len(merged), "existing learning", "existing learnings"))
		writeItems(w, merged)
	}
	if conflict {
		fmt.Fprintln(w, "hone learn list shows the ids; hone learn keep ID settles a conflict in that learning's favour.")
	}
}

// writeItems writes learnings one a line, with their confidence.
func writeItems(w io.Writer, list []*learning.Learning) {
	for _, l := range list {
		fmt.Fprintf(w, "- [%.2f] %s\n", l.Confidence, listed(l))
	}
}

func newLearnList(opts *options) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "List every learning, oldest first, with its confidence and status",
		Long: `List every learning, oldest first: its id, confidence and pattern, followed by
why it is not applied when it is not: below the threshold, in conflict with
another learning, or contradicting the protected rules. Learnings of one
tester (HONE_LEARN_SCOPE=tester) name the tester. --json prints them all with
every field, as JSON.`,
		Example: `  hone learn list
  hone learn list --json | jq '.learnings[] | select(.status == "active")'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return opts.withLearning(cmd, false, func(ctx context.Context, s *learning.Service) error {
				list, err := s.Learnings(ctx, learning.LearningFilter{})
				if err != nil {
					return err
				}
				enabled, err := s.Enabled(ctx)
				if err != nil {
					return err
				}
				return termPrint(cmd.OutOrStdout(), func(w io.Writer) error {
					if asJSON {
						return writeJSON(w, learningList{Enabled: enabled, Threshold: s.Threshold(), Learnings: list})
					}
					return writeLearnings(w, list, enabled)
				})
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the learnings as JSON, with every field")
	return cmd
}

// learningList is what hone learn list --json prints.
type learningList struct {
	// Enabled is false when learnings are disabled: none is applied.
	Enabled   bool                 `json:"enabled"`
	Threshold float64              `json:"threshold"`
	Learnings []*learning.Learning `json:"learnings"`
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// disabledNote says that learnings are switched off.
const disabledNote = "Learnings are disabled: none is applied to the prompt (hone learn enable applies them again)."

func writeLearnings(w io.Writer, list []*learning.Learning, enabled bool) error {
	if !enabled {
		fmt.Fprintln(w, disabledNote)
	}
	if len(list) == 0 {
		fmt.Fprintln(w, "Nothing learned yet: testers rate answers 👎 and say what should change, then hone learn synthesize learns from it.")
		return nil
	}
	if !enabled {
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tConfidence\tPattern")
	for _, l := range list {
		fmt.Fprintf(tw, "%s\t%.2f\t%s\n", l.ID, l.Confidence, listed(l))
	}
	return tw.Flush()
}
