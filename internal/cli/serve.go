package cli

import (
	"log/slog"
	"os"

	"github.com/honehq/hone/internal/app"
	"github.com/spf13/cobra"
)

func newServe(opts *options) *cobra.Command {
	var upstream string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the hone server: web UI, JSON API and chat",
		Long: `Run the hone server: the web UI at /, the JSON API at /api/v1 (described at
/api/v1/openapi.json). Data goes to hone.db in --data-dir unless HONE_DATABASE_URL
names a PostgreSQL database; migrations run at start. The chat at /chat talks to
the LLM under the --prompt files; without them it says what to set.

With HONE_API_TOKEN set, the API wants it as a Bearer token and every page asks
to sign in (with the token, or a link from hone login-link); /healthz stays open.
hone refuses to serve an address other machines can reach without a token,
unless --no-auth says the network is yours alone.

With --upstream (HONE_UPSTREAM_URL) hone is also a recording proxy: an
application that points its OpenAI base URL at hone's /v1 gets the upstream's
answers, and each exchange is recorded as a turn.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			log := slog.Default()
			if upstream != "" {
				if err := os.Setenv("HONE_UPSTREAM_URL", upstream); err != nil {
					return err
				}
			}
			a, err := app.Open(ctx, opts.cfg, log)
			if err != nil {
				return err
			}
			defer a.Close()
			if err := a.Listen(); err != nil {
				return err
			}
			log.Info("hone is serving", "url", a.URL(), "database", opts.cfg.DatabaseName(), "sign_in", opts.cfg.APIToken != "")
			err = a.Wait(ctx)
			log.Info("hone is stopping")
			return err
		},
	}
	cmd.Flags().StringVar(&opts.cfg.Addr, "addr", opts.cfg.Addr, "address to listen on (HONE_ADDR)")
	cmd.Flags().StringVar(&upstream, "upstream", "", "serve a recording proxy to this OpenAI-compatible base URL at /v1 (HONE_UPSTREAM_URL)")
	cmd.Flags().BoolVar(&opts.cfg.NoAuth, "no-auth", false, "serve an address other machines can reach without HONE_API_TOKEN")
	cmd.Flags().StringVar(&opts.cfg.PublicURL, "public-url", opts.cfg.PublicURL, "URL users reach hone at, for download links (HONE_PUBLIC_URL)")
	cmd.Flags().Int64Var(&opts.cfg.MaxBodyBytes, "max-body-bytes", opts.cfg.MaxBodyBytes, "largest request body accepted (HONE_MAX_BODY_BYTES)")
	cmd.Flags().IntVar(&opts.cfg.MessageLimit, "message-limit", opts.cfg.MessageLimit, "largest chat reply in bytes (HONE_MESSAGE_LIMIT)")
	cmd.Flags().StringVar(&opts.cfg.MetricsFile, "metrics", opts.cfg.MetricsFile, "metric set file (YAML or JSON) scoring every turn; default the built-in set (HONE_METRICS_FILE)")
	cmd.Flags().StringArrayVar(&opts.cfg.Prompts, "prompt", opts.cfg.Prompts, "system prompt file of the chat at /chat; repeat for several (HONE_PROMPT_FILE)")
	cmd.Flags().StringVar(&opts.cfg.LLM.BaseURL, "llm-base-url", opts.cfg.LLM.BaseURL, "base URL of the LLM API for the chat (HONE_LLM_BASE_URL; the key only from HONE_LLM_API_KEY)")
	cmd.Flags().StringVar(&opts.cfg.LLM.Model, "llm-model", opts.cfg.LLM.Model, "model the chat talks to (HONE_LLM_MODEL)")
	cmd.Flags().DurationVar(&opts.cfg.Learn.Every, "learn-every", opts.cfg.Learn.Every, "synthesise pending corrections into learnings on this interval, such as 1h; 0 only when asked (HONE_LEARN_EVERY)")
	cmd.Flags().StringVar(&opts.cfg.Learn.Protected, "protected", opts.cfg.Learn.Protected, "file of rules no learning may weaken, instead of the base prompt's marked lines (HONE_LEARN_PROTECTED)")
	return cmd
}

func newMigrate(opts *options) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Bring the database schema up to date and show each migration",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := opts.openDB(cmd.Context())
			if err != nil {
				return err
			}
			defer db.Close()
			status, err := db.MigrationStatus(cmd.Context())
			if err != nil {
				return err
			}
			for _, line := range status {
				cmd.Println(line)
			}
			return nil
		},
	}
}
