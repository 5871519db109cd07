package app

import (
	"log/slog"

	"github.com/honehq/hone/internal/alerts"
	"github.com/honehq/hone/internal/bots"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/playground"

	"github.com/honehq/hone/internal/auth"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/telemetry"
	"github.com/honehq/hone/internal/web"
)

// Module is one capability of hone, added in one place: Open builds its
// service over the Core every capability shares and registers its chat
// commands, and the Parts it returns give the faces its routes, its pages'
// links and its background work. Env documents the settings it reads. A new
// capability is a Module in the list of modules.go, its own files beside it
// (its domain package, its store and migrations, its API and web files), and
// nothing else.
type Module struct {
	// Name names the capability in logs and errors.
	Name string
	// Env lists the environment variables the module reads, with what they
	// set, for the help text.
	Env [][2]string
	// Open builds the capability over c; a setting that cannot work is its
	// error, and hone does not start.
	Open func(c *Core) (*Parts, error)
}

// Parts are what an open capability adds to hone.
type Parts struct {
	// API are its JSON API routes, relative to /api/v1.
	API []server.Route
	// Web are its pages' routes.
	Web []server.Route
	// Nav are its links in the pages' top navigation.
	Nav []web.NavItem
	// Jobs are its background work, run while hone serves.
	Jobs []Job
	// Faces are HTTP faces of its own beside the API and the web UI (a
	// protocol endpoint such as /v1/traces), each under its pattern, their
	// requests counted in the metrics under their Name.
	Faces []Face
}

// Job is background work that runs while hone serves.
type Job struct {
	Name  string
	Start func()
	Stop  func()
}

// Core is what every capability shares: the settings, the database, the
// chat router, the turn recorder, the scores, the LLM, sign-in, the web UI
// its pages render with, and the metrics it counts in.
type Core struct {
	Config config.Config
	Log    *slog.Logger
	DB     *storage.DB
	Chat   *chat.Router
	Turns  *capture.Recorder
	// Names keep testers' display names (SetTesterName) for pages.
	Names *capture.Names
	// Scores is the one path every judgment is recorded through.
	Scores *score.Service
	// LLM is nil when no LLM is configured; LLMError then says why.
	LLM      *llm.Client
	LLMError error
	Auth     *auth.Auth
	Links    *auth.Links
	UI       *web.UI
	// Hosts are the hosts hone answers to without an API token (DNS
	// rebinding is refused); nil, with a token, allows every host.
	Hosts *server.Hosts
	// Telemetry are the metrics Prometheus reads at /metrics; a capability
	// counts in them through its methods (the score capability's judgments
	// with ScoresRecorded, its domain package taking it as an interface of
	// its own) and adds metrics of its own with Register. Nil counts
	// nothing, and its methods may still be called.
	Telemetry *telemetry.Metrics
	// Getenv reads a setting of the environment (os.Getenv, or a test's).
	Getenv func(string) string
	// Learning is the learning loop (ratings, corrections, learnings);
	// Prompts are the prompt files the chat answers under.
	Learning *learning.Service
	Prompts  []*playground.Prompt
	// Alerts is the alerts capability once its module opened; Bots the
	// chat-platform bot once its module opened, which a platform's adapter
	// hands messages to and adds itself to as a Deliverer of alerts.
	Alerts *alerts.Service
	Bots   *bots.Service
}
