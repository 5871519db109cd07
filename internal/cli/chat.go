package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/playground"
	"github.com/spf13/cobra"
)

// chatFlags are hone chat's own flags.
type chatFlags struct {
	prompt, tester, email, conversation string
	baseURL, model                      string
}

func newChat(opts *options) *cobra.Command {
	f := chatFlags{
		prompt: firstPrompt(os.Getenv("HONE_PROMPT_FILE")),
		tester: envOr("HONE_TESTER_ID", envOr("USER", "tester")),
		email:  os.Getenv("HONE_TESTER_EMAIL"),
	}
	cmd := &cobra.Command{
		Use:   "chat --prompt MASTER_PROMPT.md",
		Short: "Chat with the model under test in the terminal, with the tuning commands",
		Long: `Chat with the configured model, using the prompt file as the system prompt.
Every message becomes a turn of the current tuning session; the tuning commands
(!improve, !print, !reset, … — !help lists them) work as in any chat. Editing the
prompt file starts a new session. When standard input is not a terminal, each
line is one message and hone chat exits at the end of the input.

` + llm.ConfigHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runChat(cmd.Context(), opts, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.prompt, "prompt", f.prompt, "system prompt file (HONE_PROMPT_FILE)")
	fl.StringVar(&f.tester, "tester", f.tester, "your tester id (HONE_TESTER_ID, default $USER)")
	fl.StringVar(&f.email, "email", f.email, "your email (HONE_TESTER_EMAIL)")
	fl.StringVar(&f.conversation, "conversation", "", "conversation id (default terminal:<tester>@<host>)")
	fl.StringVar(&f.baseURL, "llm-base-url", "", "overrides HONE_LLM_BASE_URL")
	fl.StringVar(&f.model, "llm-model", "", "overrides HONE_LLM_MODEL")
	return cmd
}

func firstPrompt(v string) string {
	first, _, _ := strings.Cut(v, ",")
	return strings.TrimSpace(first)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func runChat(ctx context.Context, opts *options, f chatFlags) error {
	cfg, err := llm.ConfigFromEnv()
	if err == nil {
		if f.baseURL != "" {
			cfg.BaseURL = f.baseURL
		}
		if f.model != "" {
			cfg.Model = f.model
		}
		err = cfg.Validate()
	}
	if err != nil || !cfg.Configured() {
		fmt.Fprintf(opts.stderr, "hone chat needs an LLM to talk to.\n\n%s", llm.ConfigHelp)
		return exitError{code: 2}
	}
	prompt, err := playground.LoadPrompt(f.prompt)
	if err != nil {
		return err
	}
	appCfg := opts.cfg
	appCfg.MessageLimit, appCfg.Prompts = 1<<30, nil
	a, err := app.Open(ctx, appCfg, slog.Default())
	if err != nil {
		return err
	}
	defer a.Close()
	client, err := llm.New(cfg, a.DB.LLMCalls())
	if err != nil {
		return err
	}
	g := playground.New(a.Turns, a.Chat, client, prompt, slog.Default())
	g.Augment(a.Learning)
	if f.conversation == "" {
		host, _ := os.Hostname()
		f.conversation = "terminal:" + f.tester + "@" + host
	}
	tester := capture.Tester{ConversationID: f.conversation, TesterID: f.tester, TesterEmail: f.email}
	s, err := g.Open(ctx, tester)
	if err != nil {
		return err
	}
	c := &terminalChat{g: g, router: a.Chat, tester: tester, session: s.ID, out: termOut(opts.stdout), errOut: opts.stderr,
		interactive: isTerminal(opts.stdin) && isTerminal(opts.stdout)}
	_, version, _ := prompt.Current()
	if c.interactive {
		fmt.Fprintf(c.out, "hone chat · %s (version %s) · model %s\nSession %s. Type a message, or !help for the tuning commands; Ctrl-D quits.\n",
			prompt.Name(), version, client.Model(llm.PurposeChat), s.ID)
	} else {
		fmt.Fprintf(c.errOut, "hone chat: session %s, prompt %s (version %s)\n", s.ID, prompt.Name(), version)
	}
	return c.run(ctx, opts.stdin)
}

// terminalChat is one hone chat in a terminal or a script.
type terminalChat struct {
	g           *playground.Chat
	router      *chat.Router
	tester      capture.Tester
	session     string
	out, errOut io.Writer
	interactive bool
}

func (c *terminalChat) run(ctx context.Context, in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 4*chat.MaxTextLength)
	for {
		if c.interactive {
			fmt.Fprint(c.out, "\nyou> ")
		}
		if !sc.Scan() {
			break
		}
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		c.send(ctx, line)
		if ctx.Err() != nil {
			return nil
		}
	}
	if c.interactive {
		fmt.Fprintln(c.out)
	}
	return sc.Err()
}

func (c *terminalChat) send(ctx context.Context, line string) {
	var onDelta func(string)
	var streamed bool
	var stop func()
	if c.interactive && !c.router.IsCommand(line) {
		stop = spin(c.errOut)
		onDelta = func(d string) {
			if !streamed {
				stop()
				streamed = true
			}
			fmt.Fprint(c.out, d)
		}
	}
	r, err := c.g.Send(ctx, c.tester, line, onDelta)
	if stop != nil {
		stop()
	}
	switch {
	case err != nil:
		fmt.Fprintln(c.errOut, "⚠️", userMessage(err))
	case streamed && !r.Failed:
		fmt.Fprintln(c.out)
	case r.Ack:
		fmt.Fprintln(c.out, "👍")
	case r.Text != "":
		if streamed {
			fmt.Fprintln(c.out)
		}
		fmt.Fprintln(c.out, r.Text)
	}
	if r.SessionID != "" && r.SessionID != c.session {
		c.session = r.SessionID
		if c.interactive {
			fmt.Fprintf(c.out, "(now in session %s)\n", r.SessionID)
		}
	}
}

// spin shows a spinner on w until the returned function is called.
func spin(w io.Writer) func() {
	done := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	wg.Go(func() {
		frames := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for i := 0; ; i++ {
			fmt.Fprintf(w, "\r%s thinking…", frames[i%len(frames)])
			select {
			case <-done:
				fmt.Fprint(w, "\r\033[K")
				return
			case <-t.C:
			}
		}
	})
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
		})
	}
}
