package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/honehq/hone/internal/auth"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/storage"
	"github.com/spf13/cobra"
)

func newLoginLink(opts *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "login-link",
		Short: "Print a one-time link that signs a browser in to the web UI",
		Long: `Print a one-time link that signs a browser in to hone's web UI as admin, for a
hone whose HONE_API_TOKEN is set. The link works once, for 15 minutes; the URL
is the last line on standard output. It starts with HONE_PUBLIC_URL (or
--public-url); else with the address --addr or HONE_ADDR gives (localhost for
every interface); else with the address of the hone server that started last
on this database, which it notes there when it starts.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			return opts.withDB(ctx, func(db *storage.DB) error {
				if opts.cfg.APIToken == "" {
					fmt.Fprintln(opts.stderr, "Note: HONE_API_TOKEN is not set here. A hone server without it needs no sign-in; the link matters only to one that has it.")
				}
				base := linkBase(ctx, cmd, db, opts.cfg.PublicURL, opts.cfg.Addr, opts.stderr)
				link, err := auth.New(db.Auth(), auth.Options{Token: opts.cfg.APIToken}).NewLinks(base).SignInLink(ctx)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Open this link within %s to sign in; it works once:\n%s\n", auth.DefaultSignInTTL, link)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&opts.cfg.PublicURL, "public-url", opts.cfg.PublicURL, "URL users reach hone at (HONE_PUBLIC_URL)")
	cmd.Flags().StringVar(&opts.cfg.Addr, "addr", opts.cfg.Addr, "address hone serves, for the link when there is no public URL (HONE_ADDR)")
	return cmd
}

// linkBase is the URL the links a command prints start with: the public
// URL; else the address given with --addr or HONE_ADDR; else the address
// the hone server that started last on this database noted there, said on
// stderr; else the default address, with a warning that says how to choose.
func linkBase(ctx context.Context, cmd *cobra.Command, db *storage.DB, publicURL, addr string, stderr io.Writer) string {
	if publicURL != "" {
		return strings.TrimRight(publicURL, "/")
	}
	if os.Getenv("HONE_ADDR") != "" || cmd.Flags().Changed("addr") {
		return "http://" + browserAddr(addr)
	}
	url, at, err := db.Auth().LatestServer(ctx)
	if err == nil {
		fmt.Fprintf(stderr, "Using %s, where the hone server that started last on this database (at %s) listens; --addr or HONE_PUBLIC_URL chooses another.\n",
			url, at.Local().Format(time.DateTime))
		return url
	}
	base := "http://" + browserAddr(addr)
	fmt.Fprintf(stderr, "Warning: no hone server has started on this database yet, so its address is unknown: using %s. Pass --addr or set HONE_PUBLIC_URL if hone serves elsewhere.\n", base)
	return base
}

// browserAddr is addr as a browser can open it: a host left empty or
// unspecified (every interface, as in ":8080" or "0.0.0.0:8080") becomes
// localhost, as in the URL hone serve logs.
func browserAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

func newRotateSecret(opts *options) *cobra.Command {
	return &cobra.Command{
		Use:   "rotate-secret",
		Short: "Revoke every sign-in and every signed link by replacing hone's signing secret",
		Long: `Replace the secret hone signs sign-in cookies, one-time sign-in links, the
download links of !print and workshop members' browser sign-ins with.
Everything signed so far stops working: everyone signs in again, testers ask
for new links, and workshop members open their join links again (a join link
itself works until its facilitator makes a new one). Servers sharing the
database pick up the new secret within 5 seconds.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return opts.withDB(cmd.Context(), func(db *storage.DB) error {
				if err := auth.New(db.Auth(), auth.Options{}).Rotate(cmd.Context()); err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), "The signing secret is new: every sign-in and signed link from before no longer works (workshop members open their join links again).")
				return nil
			})
		},
	}
}

func newToken() *cobra.Command {
	return &cobra.Command{
		Use:   "token",
		Short: "Print a new random API token for HONE_API_TOKEN",
		Long: `Print a new random secret, 43 characters (32 random bytes, base64url), to use
as HONE_API_TOKEN:

    export HONE_API_TOKEN=$(hone token)

hone wants a token of at least 16 characters to serve an address other machines
can reach.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), config.NewToken())
			return nil
		},
	}
}
