package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/tuning"
	"github.com/spf13/cobra"
)

func newExport(opts *options) *cobra.Command {
	var sessionID, format, output string
	cmd := &cobra.Command{
		Use:   "export --session ID [--format csv|json] [--output FILE]",
		Short: "Export a session's turns and improvement notes as CSV or JSON",
		Long: `Export a session's turns and improvement notes as CSV or JSON, to a file or to
standard output. Written to a terminal, characters that would act on it (escape
sequences, carriage returns, other control characters) are shown escaped, as
\u001b; written to a file or a pipe, the export is exact.`,
		Example: `  hone export --session k3m9x2qa > session.csv
  hone export --session k3m9x2qa --format json --output session.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if sessionID == "" {
				return hone.FieldError("session", "--session is required: the id of the session to export (see hone sessions)")
			}
			if format != "csv" && format != "json" {
				return hone.FieldError("format", "--format must be csv or json, not %q", format)
			}
			ctx := cmd.Context()
			db, err := opts.openDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			svc := tuning.NewService(db.Capture(), db.Tuning(), tuning.Options{AppName: opts.cfg.AppName})
			e, err := svc.Export(ctx, sessionID, format)
			if err != nil {
				return err
			}
			return writeExport(opts, e.Write, output)
		},
	}
	cmd.Flags().StringVar(&sessionID, "session", "", "id of the session to export (required)")
	cmd.Flags().StringVar(&format, "format", "csv", "csv or json")
	cmd.Flags().StringVarP(&output, "output", "o", "", "file to write (default: standard output)")
	return cmd
}

// writeExport writes an export to the file output, or to standard output
// when output is "" or "-" (escaped for a terminal, exact to a file or a
// pipe).
func writeExport(opts *options, export func(io.Writer) error, output string) error {
	write := func(w *bufio.Writer) error {
		if err := export(w); err != nil {
			return err
		}
		return w.Flush()
	}
	if output == "" || output == "-" {
		return termPrint(stdoutOr(opts), func(out io.Writer) error {
			return write(bufio.NewWriterSize(out, 64<<10))
		})
	}
	return writeFileAtomic(output, write)
}

// writeFileAtomic writes to a temporary file beside path and renames it into
// place only when write succeeds, so a failed export leaves no partial file.
func writeFileAtomic(path string, write func(*bufio.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if err := write(bufio.NewWriterSize(f, 64<<10)); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
