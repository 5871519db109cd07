// Command gen writes internal/api/openapi.json, the OpenAPI document of
// hone's API, from the route table of a hone opened over a scratch
// database (the API's own routes and those its capabilities' modules add),
// the Go types of the bodies and answers, and the prose file openapi.yaml:
// see api.Generate. Run it with go generate ./internal/api.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/config"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run() error {
	dir, err := os.MkdirTemp("", "hone-openapi-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	a, err := app.Open(context.Background(), config.Config{Addr: "127.0.0.1:0", DataDir: dir, MaxBodyBytes: 1 << 20},
		slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	defer a.Close()
	doc, err := api.Generate(a.API.AllRoutes())
	if err != nil {
		return err
	}
	return os.WriteFile("openapi.json", doc, 0o644)
}
