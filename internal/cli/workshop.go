package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/workshop"
	"github.com/spf13/cobra"
)

// workshopFlags are the flags every workshop subcommand shares.
type workshopFlags struct {
	publicURL, addr string
}

func newWorkshop(opts *options) *cobra.Command {
	wf := &workshopFlags{publicURL: opts.cfg.PublicURL, addr: opts.cfg.Addr}
	cmd := &cobra.Command{
		Use:   "workshop",
		Short: "Run discovery workshops: traces, participants, feedback, analyses and the draft rubric",
		Long: `Run a discovery workshop from the command line, as its admin: create it, add
participants (each gets a personal join link), import the traces to review,
begin discovery, follow the participants' progress and feedback, analyse the
feedback (with the LLM that HONE_LLM_* configures) and export it all.

Participants give their feedback in the web UI through their join links, or
through the API with their tokens. Join links start with HONE_PUBLIC_URL; else
with the address --addr or HONE_ADDR gives; else with the address of the hone
server that started last on this database.`,
		Example: `  hone workshop create --name "Support bot review" --facilitator-name Fay
  hone workshop add-member k3m9x2qa7b1c --name Alice --email alice@example.com
  hone workshop import k3m9x2qa7b1c traces.jsonl
  hone workshop begin-discovery k3m9x2qa7b1c --trace-limit 10
  hone workshop status k3m9x2qa7b1c
  hone workshop analyze k3m9x2qa7b1c > analysis.md
  hone workshop export k3m9x2qa7b1c --format csv --output feedback.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&wf.publicURL, "public-url", wf.publicURL, "URL users reach hone at, for join links (HONE_PUBLIC_URL)")
	pf.StringVar(&wf.addr, "addr", wf.addr, "address hone serves, for join links when there is no public URL (HONE_ADDR)")
	cmd.AddCommand(newWorkshopList(opts, wf), newWorkshopCreate(opts, wf), newWorkshopAddMember(opts, wf),
		newWorkshopImport(opts, wf), newWorkshopBegin(opts, wf), newWorkshopStatus(opts, wf),
		newWorkshopFeedback(opts, wf), newWorkshopAnalyze(opts, wf), newWorkshopAnalyses(opts, wf),
		newWorkshopRubric(opts, wf), newWorkshopExport(opts, wf))
	return cmd
}

// workshopLLM makes the LLM client HONE_LLM_* configures, or says why
// there is none (not configured, or configured wrongly).
func workshopLLM(cfg llm.Config, db *storage.DB) (*llm.Client, error) {
	err := cfg.Validate()
	if !cfg.Configured() || err != nil {
		return nil, err
	}
	return llm.New(cfg, db.LLMCalls())
}

// withWorkshops runs fn with the workshop service over the configured
// database, acting as the admin.
func (o *options) withWorkshops(cmd *cobra.Command, wf *workshopFlags, fn func(ctx context.Context, s *workshop.Service) error) error {
	ctx := hone.WithIdentity(cmd.Context(), hone.Admin)
	return o.withDB(ctx, func(db *storage.DB) error {
		client, llmErr := workshopLLM(o.cfg.LLM, db)
		var base string
		var once sync.Once
		joinURL := func(_ context.Context, path string) string {
			once.Do(func() { base = linkBase(ctx, cmd, db, wf.publicURL, wf.addr, o.stderr) })
			return base + path
		}
		s := workshop.NewService(db.Workshops(), db.Capture(), workshop.Options{Logger: slog.Default(), LLM: client,
			LLMError: llmErr, JoinURL: joinURL})
		return fn(ctx, s)
	})
}

// workshopArgs requires the workshop id and then between min and max more
// arguments, named in the error.
func workshopArgs(extra ...string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		switch {
		case len(args) == 0 || strings.TrimSpace(args[0]) == "":
			return errors.New("give the workshop id (hone workshop list shows them)")
		case len(args) > 1+len(extra):
			want := "only the workshop id"
			if len(extra) > 0 {
				want = "the workshop id and " + strings.Join(extra, ", ")
			}
			return fmt.Errorf("too many arguments: give %s, not %q", want, args[1:])
		}
		return nil
	}
}

// termPrint writes through termOut and flushes what an escaping terminal
// writer holds back.
func termPrint(w io.Writer, fn func(w io.Writer) error) error {
	out := termOut(w)
	if err := fn(out); err != nil {
		return err
	}
	if tw, ok := out.(*terminalWriter); ok {
		return tw.Flush()
	}
	return nil
}

func countNoun(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// printAccess prints a member's access, one labelled line each, after the
// lines of before.
func printAccess(w io.Writer, a *workshop.Access, before ...[2]string) {
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	for _, l := range before {
		fmt.Fprintf(tw, "%s:\t%s\n", l[0], l[1])
	}
	fmt.Fprintf(tw, "Member ID:\t%s\n", a.ID)
	fmt.Fprintf(tw, "Name:\t%s\n", cell(a.Name))
	fmt.Fprintf(tw, "Role:\t%s\n", a.Role)
	fmt.Fprintf(tw, "Token:\t%s\n", a.Token)
	fmt.Fprintf(tw, "Join URL:\t%s\n", a.JoinURL)
	tw.Flush()
}

const tokenNote = "The token and join URL are shown this once: hand them to the member. They sign in with the join URL (or send the token as a Bearer token to the API)."

func newWorkshopList(opts *options, wf *workshopFlags) *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Short:   "List the workshops, newest first",
		Long:    `List the workshops, newest first: id, name, phase, traces and when each was created.`,
		Example: `  hone workshop list`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return opts.withWorkshops(cmd, wf, func(ctx context.Context, s *workshop.Service) error {
				list, err := s.List(ctx)
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "WORKSHOP\tNAME\tPHASE\tTRACES\tCREATED")
				for _, w := range list {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", w.ID, cell(w.Name), w.Phase, w.TraceCount, w.CreatedAt.Local().Format("2006-01-02 15:04"))
				}
				return tw.Flush()
			})
		},
	}
}

func newWorkshopCreate(opts *options, wf *workshopFlags) *cobra.Command {
	var in workshop.Create
	cmd := &cobra.Command{
		Use:   "create --name NAME --facilitator-name NAME [--facilitator-email EMAIL] [--description TEXT] [--input-jsonpath PATH] [--output-jsonpath PATH] [--model MODEL]",
		Short: "Create a workshop with its first facilitator",
		Long: `Create a workshop, in the intake phase, with its first facilitator. It prints
the workshop's id and the facilitator's member id, personal token and join URL,
one labelled line each; the token is shown this once.

--input-jsonpath and --output-jsonpath pick the text to show (and to send to
the LLM) out of each trace's input and output when they are JSON, such as
$.messages[-1].content; without them a JSON string is shown as it is and other
JSON compactly.`,
		Example: `  hone workshop create --name "Support bot review" --facilitator-name Fay --facilitator-email fay@example.com
  hone workshop create --name "Agent traces" --facilitator-name Fay --output-jsonpath '$.answer'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if strings.TrimSpace(in.Name) == "" {
				return hone.FieldError("name", "--name is required: the workshop's name")
			}
			if strings.TrimSpace(in.Facilitator.Name) == "" {
				return hone.FieldError("facilitator.name", "--facilitator-name is required: the name of the workshop's first facilitator")
			}
			return opts.withWorkshops(cmd, wf, func(ctx context.Context, s *workshop.Service) error {
				c, err := s.Create(ctx, in)
				if err != nil {
					return flagError(err)
				}
				printAccess(cmd.OutOrStdout(), &c.Facilitator, [2]string{"Workshop ID", c.ID}, [2]string{"Workshop", cell(c.Name)})
				fmt.Fprintln(opts.stderr, tokenNote)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&in.Name, "name", "", "the workshop's name (required)")
	f.StringVar(&in.Description, "description", "", "what the workshop reviews; the LLM reads it too")
	f.StringVar(&in.InputJSONPath, "input-jsonpath", "", "JSONPath of the text to show out of each trace's input")
	f.StringVar(&in.OutputJSONPath, "output-jsonpath", "", "JSONPath of the text to show out of each trace's output")
	f.StringVar(&in.Model, "model", "", "LLM model for follow-up questions and analyses (default HONE_LLM_MODEL)")
	f.StringVar(&in.Facilitator.Name, "facilitator-name", "", "the first facilitator's name (required)")
	f.StringVar(&in.Facilitator.Email, "facilitator-email", "", "the first facilitator's email")
	return cmd
}

// flagError names the flag of a service error about a field, for errors
// such as "facilitator.email is not an email address".
func flagError(err error) error {
	var he *hone.Error
	if !errors.As(err, &he) || he.Field == "" {
		return err
	}
	flag := "--" + strings.ReplaceAll(strings.ReplaceAll(he.Field, ".", "-"), "_", "-")
	c := *he
	c.Message = flag + ": " + he.Message
	return &c
}

func newWorkshopAddMember(opts *options, wf *workshopFlags) *cobra.Command {
	var p workshop.Person
	cmd := &cobra.Command{
		Use:   "add-member WORKSHOP_ID --name NAME [--email EMAIL] [--role participant|facilitator]",
		Short: "Add a participant or a facilitator, and print their token and join URL",
		Long: `Add a member to a workshop: a participant (a subject-matter expert who reviews
traces; the default) or another facilitator. It prints their member id, their
personal token and their join URL, one labelled line each; the token is shown
this once.`,
		Example: `  hone workshop add-member k3m9x2qa7b1c --name Alice --email alice@example.com
  hone workshop add-member k3m9x2qa7b1c --name Sam --role facilitator`,
		Args: workshopArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(p.Name) == "" {
				return hone.FieldError("name", "--name is required: the member's name")
			}
			return opts.withWorkshops(cmd, wf, func(ctx context.Context, s *workshop.Service) error {
				a, err := s.AddMember(ctx, args[0], "", p)
				if err != nil {
					return flagError(err)
				}
				printAccess(cmd.OutOrStdout(), a)
				fmt.Fprintln(opts.stderr, tokenNote)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.Name, "name", "", "the member's name (required)")
	f.StringVar(&p.Email, "email", "", "the member's email")
	f.StringVar(&p.Role, "role", workshop.RoleParticipant, "participant or facilitator")
	return cmd
}

func newWorkshopImport(opts *options, wf *workshopFlags) *cobra.Command {
	var format, sessionID, promptVersion string
	var skipInvalid bool
	cmd := &cobra.Command{
		Use:   "import WORKSHOP_ID (FILE [--format json|jsonl|csv] [--skip-invalid] | --from-session ID | --prompt-version VERSION)",
		Short: "Import traces to review from a JSON, JSONL or CSV file, or from tuning sessions",
		Long: `Import the traces a workshop reviews.

From a file (- reads standard input and then needs --format):
  json   an array of traces: [{"id": …, "input": …, "output": …}, …]
  jsonl  one trace object per line
  csv    a header row naming the columns input, output and optionally id,
         context, metadata; a cell holding a JSON object or array is that
         JSON, any other cell a string
The format comes from the file's extension (.json, .jsonl or .ndjson, .csv)
unless --format gives it. input and output are required; id (letters, digits,
'.', '_', ':' or '-') is made up when not given; metadata is a JSON object.

A file with an invalid trace imports nothing: every invalid one is listed on
standard error as "line N: field: message", and the command exits with 1. With
--skip-invalid the valid traces are imported and the invalid ones listed.

From hone's tuning sessions: --from-session imports the turns of one session,
--prompt-version those of every session of a prompt version (the user message
as input, the response as output, the retrieval results as context). A turn
imported before is skipped.`,
		Example: `  hone workshop import k3m9x2qa7b1c traces.jsonl
  hone workshop import k3m9x2qa7b1c export.txt --format csv --skip-invalid
  jq -c '.[]' traces.json | hone workshop import k3m9x2qa7b1c - --format jsonl
  hone workshop import k3m9x2qa7b1c --from-session s8f2k1m0
  hone workshop import k3m9x2qa7b1c --prompt-version v3`,
		Args: workshopArgs("FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			format = strings.ToLower(strings.TrimSpace(format))
			fromSessions := sessionID != "" || promptVersion != ""
			switch {
			case fromSessions && len(args) > 1:
				return errors.New("give a FILE or --from-session/--prompt-version, not both")
			case fromSessions && (format != "" || skipInvalid):
				return errors.New("--format and --skip-invalid are for importing a file, not sessions")
			case sessionID != "" && promptVersion != "":
				return errors.New("give --from-session or --prompt-version, not both")
			case !fromSessions && len(args) < 2:
				return errors.New("give the FILE to import (- for standard input), or --from-session ID or --prompt-version VERSION")
			case format != "" && format != workshop.FormatJSON && format != workshop.FormatJSONL && format != workshop.FormatCSV:
				return hone.FieldError("format", "--format must be json, jsonl or csv, not %q", format)
			}
			if fromSessions {
				return opts.withWorkshops(cmd, wf, func(ctx context.Context, s *workshop.Service) error {
					res, err := s.ImportSessions(ctx, args[0], "", workshop.SessionImport{SessionID: sessionID, PromptVersion: promptVersion})
					if err != nil {
						return err
					}
					fmt.Fprintf(cmd.OutOrStdout(), "imported %s\n", countNoun(res.Imported, "trace", "traces"))
					if len(res.Skipped) > 0 {
						fmt.Fprintf(opts.stderr, "skipped %s:\n", countNoun(len(res.Skipped)+res.ErrorsNotListed, "turn", "turns"))
						printLines(opts.stderr, res.Skipped, res.ErrorsNotListed)
					}
					return nil
				})
			}
			file := args[1]
			if format == "" {
				if file == "-" {
					return hone.FieldError("format", "--format is required when reading standard input: json, jsonl or csv")
				}
				if format = workshop.FormatOf(file, ""); format == "" {
					return hone.FieldError("format", "cannot tell the format of %s from its name: give --format json, jsonl or csv", file)
				}
			}
			var r io.Reader = cmd.InOrStdin()
			if file != "-" {
				f, err := os.Open(file)
				if err != nil {
					return err
				}
				defer f.Close()
				r = f
			}
			return opts.withWorkshops(cmd, wf, func(ctx context.Context, s *workshop.Service) error {
				res, err := s.ImportTraces(ctx, args[0], "", r, format, skipInvalid)
				var ie *workshop.ImportError
				if errors.As(err, &ie) {
					fmt.Fprintf(opts.stderr, "Nothing was imported: %s of %s cannot be imported:\n",
						countNoun(len(ie.Lines)+ie.NotListed, "trace", "traces"), TerminalText(file))
					printLines(opts.stderr, ie.Lines, ie.NotListed)
					fmt.Fprintln(opts.stderr, "Fix them, or import the others with --skip-invalid.")
					return exitError{code: 1}
				}
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "imported %s\n", countNoun(res.Imported, "trace", "traces"))
				if len(res.Skipped) > 0 {
					fmt.Fprintf(opts.stderr, "skipped %s:\n", countNoun(len(res.Skipped)+res.ErrorsNotListed, "invalid trace", "invalid traces"))
					printLines(opts.stderr, res.Skipped, res.ErrorsNotListed)
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "", "json, jsonl or csv (default: from the file's extension)")
	f.BoolVar(&skipInvalid, "skip-invalid", false, "import the valid traces of a file that has invalid ones, and list those")
	f.StringVar(&sessionID, "from-session", "", "import the turns of this tuning session")
	f.StringVar(&promptVersion, "prompt-version", "", "import the turns of every tuning session of this prompt version")
	return cmd
}

// printLines prints the invalid traces of an import, one a line: "line N:
// field: message", and then how many more it did not list.
func printLines(w io.Writer, lines []workshop.LineError, notListed int) {
	for _, l := range lines {
		var b strings.Builder
		b.WriteString("  ")
		if l.Line > 0 {
			fmt.Fprintf(&b, "line %d: ", l.Line)
		}
		if l.Field != "" {
			b.WriteString(l.Field + ": ")
		}
		b.WriteString(l.Message)
		fmt.Fprintln(w, TerminalText(b.String()))
	}
	if notListed > 0 {
		fmt.Fprintf(w, "  … and %d more, not listed\n", notListed)
	}
}

func newWorkshopBegin(opts *options, wf *workshopFlags) *cobra.Command {
	var limit int
	var randomize bool
	cmd := &cobra.Command{
		Use:   "begin-discovery WORKSHOP_ID [--trace-limit N] [--randomize]",
		Short: "Begin discovery: assign the first traces to every participant",
		Long: `Begin discovery: the first --trace-limit traces imported (all of them when there
are fewer) are assigned to every participant, who gives each a GOOD or BAD
label, a comment, and answers to three follow-up questions. With --randomize
each participant gets the traces in their own order. The workshop moves from
intake to discovery; discovery begins once.`,
		Example: `  hone workshop begin-discovery k3m9x2qa7b1c
  hone workshop begin-discovery k3m9x2qa7b1c --trace-limit 20 --randomize`,
		Args: workshopArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 1 || limit > workshop.MaxImportTraces {
				return hone.FieldError("trace_limit", "--trace-limit must be from 1 to %d, not %d", workshop.MaxImportTraces, limit)
			}
			return opts.withWorkshops(cmd, wf, func(ctx context.Context, s *workshop.Service) error {
				w, err := s.Begin(ctx, args[0], "", limit, randomize)
				if err != nil {
					return err
				}
				order := "in the same order"
				if w.DiscoveryRandomize {
					order = "each in their own order"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Discovery has begun in workshop %s: every participant reviews %s of %d, %s.\n",
					w.ID, countNoun(w.AssignedCount, "trace", "traces"), w.TraceCount, order)
				return nil
			})
		},
	}
	cmd.Flags().IntVar(&limit, "trace-limit", workshop.DefaultTraceLimit, "how many of the first traces discovery reviews")
	cmd.Flags().BoolVar(&randomize, "randomize", false, "give each participant their own order of the traces")
	return cmd
}

func newWorkshopStatus(opts *options, wf *workshopFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "status WORKSHOP_ID",
		Short: "Show a workshop and how far each participant is in discovery",
		Long: `Show a workshop (name, phase, traces, how many are assigned, whether discovery
has begun) and each participant's progress: the traces they completed (label,
comment and three answers) of those assigned, and the share of participants
who finished.`,
		Example: `  hone workshop status k3m9x2qa7b1c`,
		Args:    workshopArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			return opts.withWorkshops(cmd, wf, func(ctx context.Context, s *workshop.Service) error {
				w, err := s.Get(ctx, args[0])
				if err != nil {
					return err
				}
				st, err := s.Completion(ctx, w.ID, "")
				if err != nil {
					return err
				}
				return termPrint(cmd.OutOrStdout(), func(out io.Writer) error {
					tw := tabwriter.NewWriter(out, 0, 4, 1, ' ', 0)
					fmt.Fprintf(tw, "Workshop:\t%s (%s)\n", cell(w.Name), w.ID)
					fmt.Fprintf(tw, "Phase:\t%s\n", w.Phase)
					fmt.Fprintf(tw, "Traces:\t%d\n", w.TraceCount)
					started := "no (hone workshop begin-discovery " + w.ID + ")"
					assigned := fmt.Sprintf("%d per participant (trace limit %d)", w.AssignedCount, w.TraceLimit)
					if w.DiscoveryStarted {
						started = "yes"
						if w.DiscoveryRandomize {
							assigned += ", each in their own order"
						}
					} else {
						assigned = "none yet"
					}
					fmt.Fprintf(tw, "Assigned:\t%s\n", assigned)
					fmt.Fprintf(tw, "Discovery started:\t%s\n", started)
					fmt.Fprintf(tw, "Created:\t%s\n", w.CreatedAt.Local().Format("2006-01-02 15:04"))
					if err := tw.Flush(); err != nil {
						return err
					}
					fmt.Fprintln(out)
					if st.TotalParticipants == 0 {
						fmt.Fprintf(out, "No participants yet (hone workshop add-member %s --name NAME).\n", w.ID)
						return nil
					}
					tw = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
					fmt.Fprintln(tw, "PARTICIPANT\tMEMBER ID\tCOMPLETED\tFINISHED")
					for _, p := range st.Participants {
						done := "no"
						if p.Assigned > 0 && p.Completed >= p.Assigned {
							done = "yes"
						}
						fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\n", cell(p.Name), p.UserID, p.Completed, p.Assigned, done)
					}
					if err := tw.Flush(); err != nil {
						return err
					}
					fmt.Fprintf(out, "\n%d of %s finished (%.0f%%).\n", st.FinishedParticipants,
						countNoun(st.TotalParticipants, "participant", "participants"), st.PercentFinished)
					return nil
				})
			})
		},
	}
}

func newWorkshopFeedback(opts *options, wf *workshopFlags) *cobra.Command {
	var userID string
	cmd := &cobra.Command{
		Use:   "feedback WORKSHOP_ID [--user MEMBER_ID]",
		Short: "List the discovery feedback: label, answers and comment of each trace and member",
		Long: `List the discovery feedback as a facilitator sees it, one row per member and
trace: the label, how many of the three follow-up questions are answered, the
questions that were the generic fallback (asked when the LLM was unavailable),
and the start of the comment. --user shows one member's feedback only.
hone workshop export gives everything in full.`,
		Example: `  hone workshop feedback k3m9x2qa7b1c
  hone workshop feedback k3m9x2qa7b1c --user p4q8r2s6t0u1`,
		Args: workshopArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			return opts.withWorkshops(cmd, wf, func(ctx context.Context, s *workshop.Service) error {
				list, err := s.ListFeedback(ctx, args[0], userID)
				if err != nil {
					return flagError(err)
				}
				members, err := s.Members(ctx, args[0], "")
				if err != nil {
					return err
				}
				names := make(map[string]string, len(members))
				for _, m := range members {
					names[m.ID] = m.Name
				}
				out := cmd.OutOrStdout()
				if len(list) == 0 {
					fmt.Fprintln(out, "No feedback yet.")
					return nil
				}
				tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "TRACE\tMEMBER\tMEMBER ID\tLABEL\tANSWERS\tFALLBACK\tCOMMENT")
				fallbacks := 0
				for _, f := range list {
					var fb []string
					for i, qa := range f.FollowupQnA {
						if qa.Fallback {
							fb = append(fb, fmt.Sprintf("Q%d", i+1))
						}
					}
					if f.Pending != nil && f.Pending.Fallback {
						fb = append(fb, fmt.Sprintf("Q%d (asked)", f.Pending.Number))
					}
					fallbacks += len(fb)
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d/%d\t%s\t%s\n", cell(f.TraceID), dash(cell(names[f.UserID])), f.UserID,
						strings.ToUpper(f.Label), len(f.FollowupQnA), workshop.Questions, dash(strings.Join(fb, " ")), cell(f.Comment))
				}
				if err := tw.Flush(); err != nil {
					return err
				}
				fmt.Fprintf(out, "\n%s", countNoun(len(list), "feedback record", "feedback records"))
				if fallbacks > 0 {
					fmt.Fprintf(out, "; %s the generic fallback (the LLM was unavailable)", countNoun(fallbacks, "question was", "questions were"))
				}
				fmt.Fprintln(out, ".")
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&userID, "user", "", "only this member's feedback (their member id)")
	return cmd
}

// analysisPollEvery is how often analyze looks at a running analysis.
var analysisPollEvery = 250 * time.Millisecond

func newWorkshopAnalyze(opts *options, wf *workshopFlags) *cobra.Command {
	var in workshop.AnalyzeInput
	wait := true
	cmd := &cobra.Command{
		Use:   "analyze WORKSHOP_ID [--template evaluation_criteria|themes_patterns|NAME] [--model MODEL] [--wait=false]",
		Short: "Analyse the discovery feedback: findings and disagreements, printed as Markdown",
		Long: `Analyse the workshop's discovery feedback (at any time, even with part of it):
the feedback is aggregated by trace, disagreements are sorted into tiers (HIGH:
one GOOD and one BAD; MEDIUM: both BAD; LOWER: both GOOD), and the LLM distils
evaluation criteria and reads each disagreement. The analysis is printed as
Markdown on standard output; its progress goes to standard error. A failed
analysis prints its error and exits with 1. Every run is kept (hone workshop
analyses lists them).

The run happens in this process, unless a running hone server on the same
database takes it first: then this waits for it. --wait=false queues it for a
server to run, prints its id and exits.

The LLM part needs HONE_LLM_BASE_URL, HONE_LLM_API_KEY and HONE_LLM_MODEL;
without them the aggregation and the disagreement tiers are still computed.

` + llm.ConfigHelp,
		Example: `  hone workshop analyze k3m9x2qa7b1c > analysis.md
  hone workshop analyze k3m9x2qa7b1c --template themes_patterns --model gpt-4o
  hone workshop analyze k3m9x2qa7b1c --wait=false`,
		Args: workshopArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			return opts.withWorkshops(cmd, wf, func(ctx context.Context, s *workshop.Service) error {
				st, err := s.Analyze(ctx, args[0], in)
				if err != nil {
					return flagError(err)
				}
				if st.Message != "" {
					fmt.Fprintln(opts.stderr, "Note:", st.Message)
				}
				if !wait {
					fmt.Fprintln(cmd.OutOrStdout(), st.ID)
					fmt.Fprintf(opts.stderr, "Analysis %s is queued: a hone server on this database runs it; hone workshop analyses %s shows its status.\n", st.ID, args[0])
					return nil
				}
				a, err := runAnalysis(ctx, s, opts.stderr, args[0], st.ID)
				if err != nil {
					return err
				}
				if a.Status == workshop.StatusFailed {
					return hone.Errorf(hone.EUNAVAILABLE, "analysis %s failed: %s", a.ID, a.Error)
				}
				return termPrint(cmd.OutOrStdout(), func(out io.Writer) error {
					_, err := io.WriteString(out, a.AnalysisData)
					return err
				})
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&in.Template, "template", workshop.TemplateEvaluationCriteria, "analysis template: evaluation_criteria, themes_patterns or a workshop's own")
	f.StringVar(&in.Model, "model", "", "LLM model for this analysis (default the workshop's, else HONE_LLM_MODEL)")
	f.BoolVar(&wait, "wait", true, "run the analysis and print it; false queues it for a server and prints its id")
	return cmd
}

// runAnalysis runs the queued analysis id in this process, reporting its
// progress on progress, and returns it finished. When a server claimed it
// first, it waits for the server to finish it (and runs it here should the
// server give it up).
func runAnalysis(ctx context.Context, s *workshop.Service, progress io.Writer, workshopID, id string) (*workshop.Analysis, error) {
	fmt.Fprintf(progress, "Analysing (analysis %s)…\n", id)
	r := &analysisReporter{w: progress}
	for {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() { _, _ = followAnalysis(ctx, s, r, workshopID, id, stop) })
		a, err := s.RunAnalysis(ctx, workshopID, id)
		close(stop)
		wg.Wait()
		if err == nil {
			r.report(a)
			return a, nil
		}
		if hone.ErrorCode(err) != hone.ENOTFOUND {
			return nil, err
		}
		if a, err = followAnalysis(ctx, s, r, workshopID, id, nil); err != nil {
			return nil, err
		}
		if a.Status == workshop.StatusDone || a.Status == workshop.StatusFailed {
			return a, nil
		}
		// Queued again: its server stopped; run it here.
	}
}

// followAnalysis polls an analysis, reporting its progress, until it is
// done or failed, queued again (given up by the server running it), or
// stop is closed.
func followAnalysis(ctx context.Context, s *workshop.Service, r *analysisReporter, workshopID, id string, stop <-chan struct{}) (*workshop.Analysis, error) {
	t := time.NewTicker(analysisPollEvery)
	defer t.Stop()
	for first := true; ; first = false {
		if !first || stop == nil {
			a, err := s.Analysis(ctx, workshopID, "", id)
			if err != nil {
				return nil, err
			}
			r.report(a)
			if stop == nil && a.Status != workshop.StatusRunning {
				return a, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-stop:
			return nil, nil
		case <-t.C:
		}
	}
}

// analysisReporter writes an analysis's progress when it changes.
type analysisReporter struct {
	mu   sync.Mutex
	w    io.Writer
	last string
}

func (r *analysisReporter) report(a *workshop.Analysis) {
	msg := a.Status
	switch {
	case a.Status == workshop.StatusRunning && a.ChunksTotal > 0:
		msg = fmt.Sprintf("running: part %d of %d done", a.ChunksDone, a.ChunksTotal)
	case a.Status == workshop.StatusDone && a.ChunksTotal > 0:
		msg = fmt.Sprintf("done: %d of %d parts", a.ChunksDone, a.ChunksTotal)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if msg != r.last {
		r.last = msg
		fmt.Fprintf(r.w, "Analysis %s: %s\n", a.ID, msg)
	}
}

func newWorkshopAnalyses(opts *options, wf *workshopFlags) *cobra.Command {
	var template string
	cmd := &cobra.Command{
		Use:   "analyses WORKSHOP_ID [--template NAME]",
		Short: "List a workshop's analysis runs, newest first",
		Long: `List a workshop's analysis runs, newest first: id, when, template, status,
participants whose feedback it read, findings, and disagreements by tier
(HIGH/MEDIUM/LOWER).`,
		Example: `  hone workshop analyses k3m9x2qa7b1c
  hone workshop analyses k3m9x2qa7b1c --template evaluation_criteria`,
		Args: workshopArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			return opts.withWorkshops(cmd, wf, func(ctx context.Context, s *workshop.Service) error {
				list, err := s.Analyses(ctx, args[0], "", template)
				if err != nil {
					return err
				}
				out := cmd.OutOrStdout()
				if len(list) == 0 {
					fmt.Fprintf(out, "No analyses yet (hone workshop analyze %s).\n", args[0])
					return nil
				}
				tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ANALYSIS\tCREATED\tTEMPLATE\tSTATUS\tPARTICIPANTS\tFINDINGS\tDISAGREEMENTS H/M/L")
				for _, a := range list {
					status := a.Status
					switch {
					case a.Status == workshop.StatusFailed && a.Error != "":
						status += ": " + cell(a.Error)
					case a.Status == workshop.StatusRunning && a.ChunksTotal > 0:
						status += fmt.Sprintf(" (%d/%d)", a.ChunksDone, a.ChunksTotal)
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d/%d/%d\n", a.ID, a.CreatedAt.Local().Format("2006-01-02 15:04"),
						cell(a.Template), status, a.ParticipantCount, len(a.Findings),
						len(a.Disagreements.High), len(a.Disagreements.Medium), len(a.Disagreements.Lower))
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().StringVar(&template, "template", "", "only the runs of this template")
	return cmd
}

func newWorkshopRubric(opts *options, wf *workshopFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "rubric WORKSHOP_ID",
		Short: "Show the draft rubric, by group",
		Long: `Show the workshop's draft rubric: the items promoted from analyses, feedback or
written by a facilitator, by group (each group becomes one rubric question),
then the ungrouped ones; with each item its source, its evidence traces and
its id.`,
		Example: `  hone workshop rubric k3m9x2qa7b1c`,
		Args:    workshopArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			return opts.withWorkshops(cmd, wf, func(ctx context.Context, s *workshop.Service) error {
				items, err := s.DraftItems(ctx, args[0], "")
				if err != nil {
					return err
				}
				return termPrint(cmd.OutOrStdout(), func(out io.Writer) error {
					writeRubric(out, items)
					return nil
				})
			})
		},
	}
}

// writeRubric writes draft items by group, in the order each group first
// appears, then the ungrouped ones.
func writeRubric(out io.Writer, items []*workshop.DraftItem) {
	if len(items) == 0 {
		fmt.Fprintln(out, "The draft rubric is empty.")
		return
	}
	var order []string
	groups := map[string][]*workshop.DraftItem{}
	for _, it := range items {
		if _, ok := groups[it.GroupID]; !ok && it.GroupID != "" {
			order = append(order, it.GroupID)
		}
		groups[it.GroupID] = append(groups[it.GroupID], it)
	}
	fmt.Fprintf(out, "Draft rubric: %s in %s, %d ungrouped.\n", countNoun(len(items), "item", "items"),
		countNoun(len(order), "group", "groups"), len(groups[""]))
	for _, g := range append(order, "") {
		list := groups[g]
		if len(list) == 0 {
			continue
		}
		if g == "" {
			fmt.Fprintf(out, "\nUngrouped (%s)\n", countNoun(len(list), "item", "items"))
		} else {
			fmt.Fprintf(out, "\n%s (%s; group %s)\n", flatLine(list[0].GroupName), countNoun(len(list), "item", "items"), g)
		}
		for _, it := range list {
			src := it.SourceType
			if len(it.SourceTraceIDs) > 0 {
				src += "; traces " + strings.Join(it.SourceTraceIDs, ", ")
			}
			fmt.Fprintf(out, "  - %s  [%s; item %s]\n", flatLine(it.Text), src, it.ID)
		}
	}
}

// flatLine is s on one line, its runs of white space made one space.
func flatLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func newWorkshopExport(opts *options, wf *workshopFlags) *cobra.Command {
	var format, output string
	cmd := &cobra.Command{
		Use:   "export WORKSHOP_ID --format jsonl|csv|md [--output FILE]",
		Short: "Export the discovery feedback (JSONL or CSV) or the analysis and draft rubric (Markdown)",
		Long: `Export a workshop:
  jsonl  one feedback record per line, with its trace and its follow-up
         questions and answers (fallback questions have "fallback": true)
  csv    one row per feedback record: trace, member, label, comment, the three
         questions and answers, and which questions were fallbacks
  md     the latest finished analysis and the draft rubric by group
To standard output, or with --output to a file, written whole or not at all.
Written to a terminal, characters that would act on it are shown escaped, as
\u001b; written to a file or a pipe, the export is exact.`,
		Example: `  hone workshop export k3m9x2qa7b1c --format jsonl > feedback.jsonl
  hone workshop export k3m9x2qa7b1c --format csv --output feedback.csv
  hone workshop export k3m9x2qa7b1c --format md --output rubric.md`,
		Args: workshopArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			format = strings.ToLower(strings.TrimSpace(format))
			switch format {
			case "":
				return hone.FieldError("format", "--format is required: jsonl, csv or md")
			case workshop.ExportJSONL, workshop.ExportCSV, workshop.ExportMarkdown:
			default:
				return hone.FieldError("format", "--format must be jsonl, csv or md, not %q", format)
			}
			return opts.withWorkshops(cmd, wf, func(ctx context.Context, s *workshop.Service) error {
				e, err := s.Export(ctx, args[0], "", format)
				if err != nil {
					return err
				}
				return writeExport(opts, e.Write, output)
			})
		},
	}
	cmd.Flags().StringVar(&format, "format", "", "jsonl, csv or md (required)")
	cmd.Flags().StringVarP(&output, "output", "o", "", "file to write (default: standard output)")
	return cmd
}
