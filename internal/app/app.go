// Package app wires hone together: configuration, database, the domain
// services, the chat router and the HTTP faces (API and web UI) over them.
package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/honehq/hone/internal/api"
	"github.com/honehq/hone/internal/auth"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/playground"
	"github.com/honehq/hone/internal/quality"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/scoring"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/telemetry"
	"github.com/honehq/hone/internal/tuning"
	"github.com/honehq/hone/internal/web"
	"github.com/honehq/hone/internal/workshop"
)

// App is a running hone: its database, services and HTTP server.
type App struct {
	Config config.Config
	Log    *slog.Logger
	DB     *storage.DB
	// Turns records turns, scored by Scoring.
	Turns *capture.Recorder
	// Names keep testers' display names for pages.
	Names *capture.Names
	// Chat routes chat messages to the capabilities' commands.
	Chat    *chat.Router
	Tuning  *tuning.Service
	Scoring *scoring.Service
	Auth    *auth.Auth
	// Links makes signed download links and sign-in links.
	Links *auth.Links
	API   *api.API
	UI    *web.UI
	// Workshops is the discovery-workshop capability.
	Workshops *workshop.Service
	// Learning is the learning loop: ratings, corrections, learnings.
	Learning *learning.Service
	// LLM is the configured LLM client, nil when there is none; LLMError
	// then says why.
	LLM      *llm.Client
	LLMError error
	// Telemetry are the metrics served to Prometheus at /metrics.
	Telemetry *telemetry.Metrics

	// scores is the one path judgments are recorded through; scoring, the
	// learning loop and the workshops follow it.
	scores *score.Service

	prompts []*playground.Prompt
	// jobs are the background work hone runs while it serves.
	jobs []Job
	// extraFaces are the faces capabilities add.
	extraFaces []Face
	// hosts are the hosts hone answers to without an API token; nil with one.
	hosts  *server.Hosts
	server *http.Server
	ln     net.Listener
	done   chan error
}

// Open connects to and migrates the database and builds every part of hone,
// without listening yet.
func Open(ctx context.Context, cfg config.Config, log *slog.Logger) (*App, error) {
	return open(ctx, cfg, log, telemetry.New())
}

// open is Open keeping its metrics in m; nil keeps none.
func open(ctx context.Context, cfg config.Config, log *slog.Logger, m *telemetry.Metrics) (*App, error) {
	if log == nil {
		log = slog.Default()
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	set, err := quality.Open(cfg.MetricsFile)
	if err != nil {
		return nil, err
	}
	db, err := storage.Open(ctx, cfg.DSN(), log)
	if err != nil {
		return nil, err
	}
	if cfg.DBTimeout > 0 {
		db.Timeout = cfg.DBTimeout
	}
	if m != nil {
		db.Meter = m
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	a := &App{Config: cfg, Log: log, DB: db, Telemetry: m}
	a.Auth = auth.New(db.Auth(), auth.Options{Token: cfg.APIToken, LinkTTL: cfg.LinkTTL, SecureCookies: cfg.PublicHTTPS(), Log: log})
	a.Links = a.Auth.NewLinks(cfg.PublicURL)
	if cfg.APIToken == "" {
		a.hosts = server.NewHosts(publicHost(cfg.PublicURL))
	}
	a.scores = score.NewService(db.Scores(), score.Options{Turns: db.Capture(), Traces: db.Workshops(), Counter: m})
	a.Scoring = scoring.New(db.Scoring(), db.Capture(), set)
	a.Scoring.Scores = a.scores
	if err := a.Scoring.EnsureConfigs(ctx); err != nil {
		db.Close()
		return nil, err
	}
	a.Turns = capture.NewRecorder(db.Capture(), a.Scoring).Counting(m)
	a.Names = capture.NewNames(db.Capture())
	a.Chat = chat.NewRouter(log, a.sessionOf)
	a.Tuning = tuning.NewService(db.Capture(), db.Tuning(), tuning.Options{Logger: log, MessageLimit: cfg.MessageLimit,
		Links: a.Links, AppName: cfg.AppName})
	a.Tuning.Register(a.Chat)
	a.Scoring.Register(a.Chat)
	a.openLLM()
	a.Workshops = workshop.NewService(db.Workshops(), db.Capture(), workshop.Options{Logger: log, LLM: a.LLM,
		LLMError: a.LLMError, JoinURL: func(ctx context.Context, path string) string { return a.Links.BaseFor(ctx) + path }, Scores: a.scores})
	a.Learning = learning.NewService(db.Learning(), learning.Options{Logger: log, LLM: a.LLM, LLMError: a.LLMError,
		Threshold: cfg.Learn.Threshold, CorrectionTimeout: cfg.Learn.CorrectionTimeout, PerTester: cfg.Learn.PerTester,
		Base: a.basePrompt, Protected: protectedFile(cfg.Learn.Protected), Scores: a.scores})
	a.scores.Follow(a.Scoring, a.Learning, a.Workshops)
	a.Tuning.ReadJudgments(sessionJudgments{scores: a.scores, learning: a.Learning})
	a.Learning.Register(a.Chat)
	a.API = &api.API{Turns: a.Turns, Sessions: db.Capture(), Chat: a.Chat, Tuning: a.Tuning, Scoring: a.Scoring,
		LLMCalls: db.LLMCalls(), Workshops: a.Workshops, Learning: a.Learning, Prompts: a.Prompts, Auth: a.Auth,
		MaxBodyBytes: cfg.MaxBodyBytes, Hosts: a.hosts, Logger: log}
	if a.UI, err = web.New(&web.UI{Sessions: db.Capture(), Turns: a.Turns, Chat: a.Chat, Tuning: a.Tuning,
		Scoring: a.Scoring, Workshops: a.Workshops, Learning: a.Learning, Names: a.Names, Scores: a.scores, Prompts: a.Prompts,
		Auth: a.Auth, Health: db.CheckWrite,
		Hosts: a.hosts, Logger: log}); err != nil {
		db.Close()
		return nil, err
	}
	if err := a.enableChat(); err != nil {
		db.Close()
		return nil, err
	}
	a.jobs = []Job{
		{Name: "workshop analyses", Start: func() { a.Workshops.Start(analysisWorkers) }, Stop: a.Workshops.Stop},
		{Name: "learning syntheses", Start: func() { a.Learning.Start(cfg.Learn.Every) }, Stop: a.Learning.Stop},
	}
	if err := a.openModules(); err != nil {
		db.Close()
		return nil, err
	}
	a.watch()
	return a, nil
}

// watch adds to the metrics what is read when Prometheus scrapes them: the
// background runs and the SQLite writer's queue.
func (a *App) watch() {
	if a.Telemetry == nil {
		return
	}
	a.Telemetry.WatchJobs(a.DB.BackgroundRuns, a.Log)
	if a.DB.Dialect() == storage.SQLite {
		a.Telemetry.WatchWriterQueue(a.DB.WriterQueue)
	}
}

// openModules opens every module over the core and adds what each gives to
// the faces, the navigation and the background work.
func (a *App) openModules() error {
	core := &Core{Config: a.Config, Log: a.Log, DB: a.DB, Chat: a.Chat, Turns: a.Turns, Names: a.Names, Scores: a.scores, LLM: a.LLM, LLMError: a.LLMError,
		Auth: a.Auth, Links: a.Links, UI: a.UI, Hosts: a.hosts, Telemetry: a.Telemetry, Getenv: os.Getenv,
		Learning: a.Learning, Prompts: a.prompts}
	nav := slices.Clone(web.DefaultNav)
	at := slices.IndexFunc(nav, func(n web.NavItem) bool { return n.Path == "/quality" })
	for _, m := range modules {
		parts, err := m.Open(core)
		if err != nil {
			return fmt.Errorf("open %s: %w", m.Name, err)
		}
		a.API.Extra = append(a.API.Extra, parts.API...)
		a.UI.Extra = append(a.UI.Extra, parts.Web...)
		nav = slices.Insert(nav, at, parts.Nav...)
		at += len(parts.Nav)
		a.jobs = append(a.jobs, parts.Jobs...)
		a.extraFaces = append(a.extraFaces, parts.Faces...)
	}
	a.UI.Nav = nav
	return nil
}

// sessionOf names a conversation's current session in the replies to
// messages hone passes on to the application.
func (a *App) sessionOf(ctx context.Context, conversationID string) (string, error) {
	s, err := a.DB.Capture().CurrentSession(ctx, conversationID)
	if err != nil {
		return "", err
	}
	return s.ID, nil
}

// Handler is everything hone serves over HTTP, each face's requests
// counted in the metrics.
func (a *App) Handler() http.Handler {
	mux := http.NewServeMux()
	var meter server.RequestMeter
	if a.Telemetry != nil {
		meter = a.Telemetry
	}
	for _, f := range a.faces() {
		mux.Handle(f.Pattern, server.Measure(cmp.Or(f.Name, f.Pattern), meter, f.Handler))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r.WithContext(auth.WithRequestBase(r.Context(), r)))
	})
}

// Face is one of hone's HTTP faces: what it serves, under a net/http
// pattern of the one listener.
type Face struct {
	// Name names the face in the metrics ("api"); "" means its Pattern.
	Name    string
	Pattern string
	Handler http.Handler
}

// faces are hone's HTTP faces: the JSON API, the Prometheus metrics, the
// web UI (everything else), and those capabilities add.
func (a *App) faces() []Face {
	faces := []Face{{Name: "api", Pattern: api.Prefix + "/", Handler: a.API.Handler()}}
	if a.Telemetry != nil {
		faces = append(faces, Face{Name: "metrics", Pattern: telemetry.Path, Handler: a.Telemetry.Handler(telemetry.FaceOptions{
			Auth: a.Auth, Hosts: a.hosts, Browser: http.HandlerFunc(web.QualityMoved), Log: a.Log})})
	}
	faces = append(faces, Face{Name: "web", Pattern: "/", Handler: a.UI.Handler()})
	return append(faces, a.extraFaces...)
}

// Listen starts serving on the configured address (":0" picks a free port)
// and returns at once; URL then says where. It refuses an address other
// machines can reach when there is no API token (see config.CheckExposure).
func (a *App) Listen() error {
	if err := a.Config.CheckExposure(context.Background()); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", a.Config.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", a.Config.Addr, err)
	}
	a.ln = ln
	if a.hosts != nil {
		a.hosts.Add(listenHosts(a.Config.Addr, ln.Addr())...)
	}
	readTimeout := a.Config.ReadTimeout
	if readTimeout <= 0 {
		readTimeout = config.DefaultReadTimeout
	}
	a.server = &http.Server{
		Handler:           a.Handler(),
		ReadHeaderTimeout: min(10*time.Second, readTimeout),
		ReadTimeout:       readTimeout,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(a.Log.Handler(), slog.LevelWarn),
	}
	a.Links.SetBase(a.URL())
	if err := a.DB.Auth().RecordServer(context.Background(), a.Links.Base()); err != nil {
		a.Log.Warn("could not note this server's address in the database; hone login-link run elsewhere will not find it", "err", err)
	}
	a.done = make(chan error, 1)
	go func() { a.done <- a.server.Serve(ln) }()
	for _, j := range a.jobs {
		j.Start()
	}
	return nil
}

// analysisWorkers is how many workshop analyses a server runs at once.
const analysisWorkers = 2

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

// Wait blocks until the server stops or ctx ends.
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
	for _, j := range a.jobs {
		j.Stop()
	}
	if a.server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.server.Shutdown(ctx)
	}
	return a.DB.Close()
}
