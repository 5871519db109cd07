// Command hone runs hone: the server, the terminal chat and the tools around them.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/honehq/hone/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
