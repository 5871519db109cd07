// Package cli is hone's command line: thin commands that parse flags, call
// the domain packages and print.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/storage"
	"github.com/spf13/cobra"
)

// Version is hone's version, set at build time with -ldflags.
var Version = "dev"

// options are the flags every command shares.
type options struct {
	cfg      config.Config
	logLevel string
	stdout   io.Writer
	stderr   io.Writer
	stdin    io.Reader
}

// Execute runs the command line with args and returns the process exit code.
func Execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root, opts := newRoot(stdin, stdout, stderr)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		var exit exitError
		if errors.As(err, &exit) {
			return exit.code
		}
		fmt.Fprintln(opts.stderr, "Error:", userMessage(err))
		return 1
	}
	return 0
}

// exitError ends a command with a code after it has said what went wrong.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func userMessage(err error) string {
	var he *hone.Error
	if errors.As(err, &he) {
		return he.Message
	}
	return err.Error()
}

func newRoot(stdin io.Reader, stdout, stderr io.Writer) (*cobra.Command, *options) {
	opts := &options{stdin: stdin, stdout: stdout, stderr: stderr}
	var envErr error
	opts.cfg, envErr = config.FromEnv()
	root := &cobra.Command{
		Use:   "hone",
		Short: "hone is the human feedback loop for LLM chat applications",
		Long: `hone captures what an LLM application said, lets people judge it where they
already are (in the chat, a browser, a terminal), and exports it all as data.

Settings come from the environment, and flags override them:
` + envHelp(),
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if envErr != nil {
				return envErr
			}
			var level slog.Level
			if err := level.UnmarshalText([]byte(opts.logLevel)); err != nil {
				return fmt.Errorf("--log-level must be debug, info, warn or error, not %q", opts.logLevel)
			}
			slog.SetDefault(slog.New(slog.NewTextHandler(opts.stderr, &slog.HandlerOptions{Level: level})))
			return opts.cfg.Validate()
		},
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	f := root.PersistentFlags()
	f.StringVar(&opts.cfg.DataDir, "data-dir", opts.cfg.DataDir, "directory of the SQLite file hone.db (HONE_DATA_DIR)")
	f.StringVar(&opts.cfg.DatabaseURL, "database-url", opts.cfg.DatabaseURL, "postgres:// URL to use PostgreSQL instead of SQLite (HONE_DATABASE_URL)")
	f.StringVar(&opts.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	root.AddCommand(newServe(opts), newMigrate(opts), newExport(opts), newSessions(opts), newChat(opts), newLLM(opts), newMetrics(opts),
		newLoginLink(opts), newRotateSecret(opts), newToken())
	root.AddCommand(newWorkshop(opts))
	root.AddCommand(newFeedback(opts), newLearn(opts), newAlerts(opts), newSuggestions(opts))
	addModuleCommands(root, opts)
	return root, opts
}

func envHelp() string {
	var b strings.Builder
	for _, e := range append(slices.Clone(config.Env), app.ModuleEnv()...) {
		fmt.Fprintf(&b, "  %-20s %s\n", e[0], e[1])
	}
	return b.String()
}

// openDB opens and migrates the configured database.
func (o *options) openDB(ctx context.Context) (*storage.DB, error) {
	db, err := storage.Open(ctx, o.cfg.DSN(), slog.Default())
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// withDB runs fn with the configured database, opened and migrated, and
// closes it after.
func (o *options) withDB(ctx context.Context, fn func(db *storage.DB) error) error {
	db, err := o.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(db)
}

func stdoutOr(o *options) io.Writer {
	if o.stdout == nil {
		return os.Stdout
	}
	return o.stdout
}
