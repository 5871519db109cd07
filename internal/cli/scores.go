package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/otlp"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/storage"
	"github.com/spf13/cobra"
)

func newScores(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scores",
		Short: "Every judgment of a turn or a trace: score configs, and exports of the scores",
		Long: `Every judgment hone holds is a score under a typed score config: !score's
dimensions, 👍/👎 (thumbs), a workshop's GOOD/BAD (workshop_label), and what
applications, LLM judges and metrics send to POST /api/v1/scores.

Printed to a terminal, what people wrote is shown with the characters that
would act on it escaped, as \u001b; to a file or a pipe it is exact.`,
		Example: `  hone scores configs list
  hone scores configs add helpfulness --type numeric --min 1 --max 10 --step 1
  hone scores export --format csv --config empathy --since 7d > empathy.csv`,
		Args: cobra.NoArgs,
	}
	configs := &cobra.Command{
		Use:   "configs",
		Short: "List, add and archive score configs",
		Args:  cobra.NoArgs,
	}
	configs.AddCommand(newScoreConfigsList(opts), newScoreConfigsAdd(opts), newScoreConfigsArchive(opts))
	cmd.AddCommand(configs, newScoresExport(opts))
	return cmd
}

// withScores runs fn with the score capability over the configured
// database.
func (o *options) withScores(cmd *cobra.Command, fn func(ctx context.Context, s *score.Service) error) error {
	return o.withDB(cmd.Context(), func(db *storage.DB) error {
		return fn(cmd.Context(), score.NewService(db.Scores(), score.Options{Turns: db.Capture()}))
	})
}

func newScoreConfigsList(opts *options) *cobra.Command {
	var archived bool
	cmd := &cobra.Command{
		Use:   "list [--archived]",
		Short: "List the score configs: name, data type, what its scores take",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return opts.withScores(cmd, func(ctx context.Context, s *score.Service) error {
				list, err := s.Configs(ctx, archived)
				if err != nil {
					return err
				}
				return termPrint(cmd.OutOrStdout(), func(w io.Writer) error {
					writeConfigs(w, list)
					return nil
				})
			})
		},
	}
	cmd.Flags().BoolVar(&archived, "archived", false, "list the archived configs too")
	return cmd
}

// writeConfigs writes configs as a table.
func writeConfigs(w io.Writer, list []*score.Config) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTYPE\tTAKES\tVERSION\tID\tDESCRIPTION")
	for _, c := range list {
		name := c.Name
		if c.Archived {
			name += " (archived)"
		}
		if c.BuiltIn {
			name += " *"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", name, c.DataType, flatLine(c.Take()), c.Version, c.ID, flatLine(c.Description))
	}
	tw.Flush()
	fmt.Fprintln(w, "\n* built in")
}

func newScoreConfigsAdd(opts *options) *cobra.Command {
	var in score.ConfigInput
	var lo, hi, step float64
	var categories []string
	cmd := &cobra.Command{
		Use:   "add NAME --type numeric|categorical|boolean|text [--min N --max N --step N] [--category LABEL[=NUMBER] …]",
		Short: "Add a score config; a numeric one is a new !score dimension",
		Long: `Add a score config. Its name is a letter, then letters, digits, _, . or -
(kept in lower case), unique among the configs that are not archived. A
numeric config may be bounded (--min, --max) and stepped (--step); a
categorical one lists its categories in order, each with an optional number
(--category GOOD=1 --category BAD=0). A numeric config is a !score
dimension at once: !score helpfulness:7.`,
		Example: `  hone scores configs add helpfulness --type numeric --min 1 --max 10 --step 1
  hone scores configs add tone --type categorical --category formal --category casual
  hone scores configs add rationale --type text --description "Why the answer is right or wrong"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Name = args[0]
			fl := cmd.Flags()
			for _, b := range []struct {
				flag string
				v    float64
				into **float64
			}{{"min", lo, &in.Min}, {"max", hi, &in.Max}, {"step", step, &in.Step}} {
				if fl.Changed(b.flag) {
					v := b.v
					*b.into = &v
				}
			}
			for i, c := range categories {
				label, number, hasNumber := strings.Cut(c, "=")
				cat := score.Category{Label: label}
				if hasNumber {
					v, err := strconv.ParseFloat(number, 64)
					if err != nil {
						return hone.FieldError(fmt.Sprintf("categories.%d.value", i), "--category %s: %q is not a number", c, number)
					}
					cat.Value = &v
				}
				in.Categories = append(in.Categories, cat)
			}
			return opts.withScores(cmd, func(ctx context.Context, s *score.Service) error {
				c, err := s.AddConfig(ctx, in)
				if err != nil {
					return err
				}
				return termPrint(cmd.OutOrStdout(), func(w io.Writer) error {
					fmt.Fprintf(w, "Added score config %s (%s, %s), id %s.\n", c.Name, c.DataType, c.Take(), c.ID)
					return nil
				})
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&in.DataType, "type", "", "numeric, categorical, boolean or text (required)")
	fl.Float64Var(&lo, "min", 0, "numeric: the smallest value")
	fl.Float64Var(&hi, "max", 0, "numeric: the largest value")
	fl.Float64Var(&step, "step", 0, "numeric: values are whole steps from --min (from 0 without it)")
	fl.StringArrayVar(&categories, "category", nil, "categorical: a category, LABEL or LABEL=NUMBER, in order (repeat)")
	fl.StringVar(&in.Description, "description", "", "what the config judges, for the people who score")
	return cmd
}

func newScoreConfigsArchive(opts *options) *cobra.Command {
	return &cobra.Command{
		Use:   "archive NAME|ID",
		Short: "Archive a score config: it takes no new scores, and its scores stay",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			archived := true
			return opts.withScores(cmd, func(ctx context.Context, s *score.Service) error {
				c, err := s.UpdateConfig(ctx, args[0], score.ConfigUpdate{Archived: &archived})
				if err != nil {
					return err
				}
				return termPrint(cmd.OutOrStdout(), func(w io.Writer) error {
					fmt.Fprintf(w, "Archived score config %s (id %s, version %d); its scores stay.\n", c.Name, c.ID, c.Version)
					return nil
				})
			})
		},
	}
}

func newScoresExport(opts *options) *cobra.Command {
	var format, output string
	var q score.Query
	cmd := &cobra.Command{
		Use:   "export --format jsonl|csv|otlp-json [filters] [--output FILE]",
		Short: "Export scores, one row each with its config's name and type and the turn's prompt version",
		Long: `Export the scores, oldest first: JSONL (one object a line) or CSV (with a
header), every column on every row, so that pandas (read_json(lines=True),
read_csv) and DuckDB (read_json_auto, read_csv_auto) read the file as is.
The columns: id, target (turn or trace), turn_id, workshop_id, trace_id,
prompt_version, config, config_id, data_type, value, numeric_value (the
number a value stands for: a boolean as 1 or 0, a category's number),
comment, source, author, created_at. CSV cells a spreadsheet would run as a
formula start with an apostrophe; JSONL is exact. otlp-json writes
OpenTelemetry gen_ai.evaluation.result log records, linked to the trace and
span of the turn judged when it has them, one OTLP JSON export request a
line (the OpenTelemetry Collector's file format).`,
		Example: `  hone scores export --format jsonl > scores.jsonl
  hone scores export --format csv --config thumbs --since 30d --output thumbs.csv
  hone scores export --format otlp-json --source llm --output evaluations.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !slices.Contains(score.Formats, format) && format != otlp.FormatJSON {
				return hone.FieldError("format", "--format must be jsonl, csv or %s, not %q", otlp.FormatJSON, format)
			}
			return opts.withDB(cmd.Context(), func(db *storage.DB) error {
				ctx := cmd.Context()
				s := score.NewService(db.Scores(), score.Options{Turns: db.Capture()})
				f, err := s.Filter(ctx, q, time.Now())
				if err != nil {
					return err
				}
				if format == otlp.FormatJSON {
					return writeExport(opts, func(w io.Writer) error {
						return otlp.WriteScoresJSON(ctx, w, db.Capture(), func(fn func(*score.Score) error) error { return s.Each(ctx, f, fn) })
					}, output)
				}
				return writeExport(opts, func(w io.Writer) error { return s.Export(ctx, f, format, w) }, output)
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&format, "format", score.FormatJSONL, "jsonl, csv or otlp-json")
	fl.StringVarP(&output, "output", "o", "", "file to write (default: standard output)")
	fl.StringVar(&q.TurnID, "turn", "", "the scores of this turn")
	fl.StringVar(&q.WorkshopID, "workshop", "", "the scores of this workshop's traces")
	fl.StringVar(&q.TraceID, "trace", "", "the scores of this trace")
	fl.StringVar(&q.Config, "config", "", "the scores of this config (name or id)")
	fl.StringVar(&q.Source, "source", "", "the scores from this source: "+strings.Join(score.Sources, ", "))
	fl.StringVar(&q.Author, "author", "", "the scores of this author")
	fl.StringVar(&q.PromptVersion, "prompt-version", "", "the scores of turns of this prompt version")
	fl.StringVar(&q.Since, "since", "", "recorded since: an RFC 3339 time, a date, or a span such as 7d")
	fl.StringVar(&q.Until, "until", "", "recorded before: an RFC 3339 time, a date, or a span such as 24h")
	return cmd
}
