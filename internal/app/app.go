// Package app wires hone together: configuration, database, the domain
// engines and the HTTP faces (API and web UI) over them.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/metrics"
	"github.com/honehq/hone/internal/scoring"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/tuning"
	"github.com/honehq/hone/internal/web"
)

// App is a running hone: its database, engine and HTTP server.
type App struct {
	Config config.Config
	Log    *slog.Logger
	DB     *storage.DB
	Engine *tuning.Engine
	API    *api.API
	UI     *web.UI
	// Scoring scores every turn and keeps human scores.
	Scoring *scoring.Service

	server *http.Server
	ln     net.Listener
	done   chan error
}

// Open connects to and migrates the database and builds every part of hone,
// without listening yet.
func Open(ctx context.Context, cfg config.Config, log *slog.Logger) (*App, error) {
	if log == nil {
		log = slog.Default()
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	set := metrics.Default()
	if cfg.MetricsFile != "" {
		var err error
		if set, err = metrics.Load(cfg.MetricsFile); err != nil {
			return nil, err
		}
	}
	db, err := storage.Open(ctx, cfg.DSN(), log)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	a := &App{Config: cfg, Log: log, DB: db, Scoring: scoring.New(db, set)}
	a.Engine = tuning.NewEngine(db, tuning.Options{Logger: log, MessageLimit: cfg.MessageLimit,
		PublicURL: cfg.PublicURL, AppName: cfg.AppName, Measurer: a.Scoring})
	a.Scoring.Register(a.Engine)
	a.API = api.New(a.Engine, cfg.APIToken, cfg.MaxBodyBytes, log)
	a.API.RegisterLLMCalls(db)
	a.API.RegisterMetrics(a.Scoring)
	if a.UI, err = web.New(a.Engine, log); err != nil {
		db.Close()
		return nil, err
	}
	if err := a.UI.EnableMetrics(a.Scoring); err != nil {
		db.Close()
		return nil, err
	}
	if err := a.enableChat(); err != nil {
		db.Close()
		return nil, err
	}
	return a, nil
}

// Handler is everything hone serves over HTTP.
func (a *App) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(api.Prefix+"/", a.API)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if err := a.DB.Ping(r.Context()); err != nil {
			http.Error(w, "database unavailable", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.Handle("/", a.UI)
	return mux
}

// Listen starts serving on the configured address (":0" picks a free port)
// and returns at once; URL then says where.
func (a *App) Listen() error {
	ln, err := net.Listen("tcp", a.Config.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", a.Config.Addr, err)
	}
	a.ln = ln
	a.server = &http.Server{
		Handler:           a.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(a.Log.Handler(), slog.LevelWarn),
	}
	if a.Config.PublicURL == "" {
		a.Engine.SetPublicURL(a.URL())
	}
	a.done = make(chan error, 1)
	go func() { a.done <- a.server.Serve(ln) }()
	return nil
}

// URL is the base URL the server answers on.
func (a *App) URL() string {
	addr := a.ln.Addr().(*net.TCPAddr)
	host := addr.IP.String()
	if addr.IP.IsUnspecified() {
		host = "localhost"
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return fmt.Sprintf("http://%s:%d", host, addr.Port)
}

// Wait blocks until the server stops or ctx ends, then shuts down gracefully.
func (a *App) Wait(ctx context.Context) error {
	select {
	case err := <-a.done:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
		return nil
	}
}

// Close stops the server, letting requests in flight finish, and closes the database.
func (a *App) Close() error {
	if a.server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.server.Shutdown(ctx)
	}
	return a.DB.Close()
}
