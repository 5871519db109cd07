// Package api serves hone's JSON API under /api/v1: the same domain calls the
// CLI, the web UI and the chat surfaces make, for applications to integrate
// with. routes.go is its route table; openapi.json, generated from it and
// from the Go types of the bodies and answers (see Generate), documents
// every route.
package api

import (
	_ "embed"
	"log/slog"
	"net/http"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/auth"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/playground"
	"github.com/honehq/hone/internal/scoring"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/tuning"
	"github.com/honehq/hone/internal/workshop"
)

// Prefix is where the API is mounted.
const Prefix = "/api/v1"

//go:embed openapi.json
var openAPI []byte

// API is the JSON API over the domain services.
type API struct {
	Turns    *capture.Recorder
	Sessions capture.Store
	Chat     *chat.Router
	Tuning   *tuning.Service
	Scoring  *scoring.Service
	LLMCalls llm.CallStore
	// Workshops is the discovery-workshop capability; it also knows the
	// members' own tokens.
	Workshops *workshop.Service
	// Learning is the learning loop: ratings, learnings, the prompt.
	Learning *learning.Service
	// Prompts are the prompt files hone serves the chat with, for the
	// full prompt of GET /prompt; nil or empty when it serves none.
	Prompts func() []*playground.Prompt
	Auth    *auth.Auth
	// MaxBodyBytes bounds request bodies.
	MaxBodyBytes int64
	// Hosts, when not nil, are the only hosts the API answers to.
	Hosts  *server.Hosts
	Logger *slog.Logger
	// Extra are the routes capabilities add to the API's own.
	Extra []server.Route
}

// AllRoutes are the API's own routes and those capabilities add.
func (a *API) AllRoutes() []server.Route { return append(a.Routes(), a.Extra...) }

// Handler serves the API's route table.
func (a *API) Handler() http.Handler {
	if a.Logger == nil {
		a.Logger = slog.Default()
	}
	f := &server.Face{Prefix: Prefix, Routes: a.AllRoutes(), Guard: a.guard, Errors: server.JSONBody, Log: a.Logger,
		What: "API endpoint", Hosts: a.Hosts}
	return f.Mux()
}

// errUnauthorized answers an API call without the token.
var errUnauthorized = hone.Errorf(hone.EUNAUTHORIZED, "a valid Bearer token is required (HONE_API_TOKEN)")

// errMemberToken refuses a workshop member's token outside the workshop routes.
var errMemberToken = hone.Errorf(hone.EFORBIDDEN, "a workshop member's token opens only the routes of their workshop")

// crossOrigin refuses what a browser says another site's page sends.
var crossOrigin = http.NewCrossOriginProtection()

// errCrossOrigin refuses a change a page of another site asked for.
var errCrossOrigin = hone.Errorf(hone.EFORBIDDEN, "the browser says another site's page sent this request: "+
	"hone's API takes changes only from its own pages and from clients that are not browsers")

// guard requires the Bearer token when one is configured (the admin's, or
// on the workshop routes a member's own), refuses a change another site's
// page asks a browser for or whose body is not of a media type the route
// takes, puts the caller's identity in the request's context and bounds the
// body.
func (a *API) guard(rt server.Route, w http.ResponseWriter, r *http.Request) (*http.Request, error) {
	id := hone.Local
	got, hasToken := server.BearerToken(r.Header.Get("Authorization"))
	enabled := a.Auth != nil && a.Auth.Enabled()
	var attempts *auth.Throttle
	if a.Auth != nil {
		attempts = a.Auth.Attempts
	}
	member := hasToken && a.Workshops != nil && workshop.LooksLikeToken(got)
	if hasToken && (enabled || member) {
		if err := attempts.Check(r); err != nil {
			return r, err
		}
	}
	switch {
	case enabled && hasToken && a.Auth.CheckToken(got):
		id = hone.Admin
	case member:
		member, ok, err := a.Workshops.Authenticate(r.Context(), got)
		if err != nil {
			return r, err
		}
		if !ok {
			attempts.Fail(r.Context(), r, "workshop member token")
		}
		if !ok && rt.Open {
			id = hone.Identity{Kind: hone.IdentityAnonymous}
			break
		}
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hone", error="invalid_token"`)
			return r, hone.Errorf(hone.EUNAUTHORIZED, "this workshop access token is not valid (revoked, or never issued)")
		}
		if !rt.Members && !rt.Open {
			return r, errMemberToken
		}
		id = member
	case enabled && rt.Open:
		id = hone.Identity{Kind: hone.IdentityAnonymous}
	case enabled:
		if hasToken {
			attempts.Fail(r.Context(), r, "API token")
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="hone"`)
		return r, errUnauthorized
	}
	if err := crossOrigin.Check(r); err != nil {
		return r, errCrossOrigin
	}
	if err := server.CheckMediaType(rt, r); err != nil {
		return r, err
	}
	if r.Body != nil && a.MaxBodyBytes > 0 {
		r.Body = http.MaxBytesReader(w, r.Body, a.MaxBodyBytes)
	}
	return r.WithContext(hone.WithIdentity(r.Context(), id)), nil
}

func (a *API) openAPI(w http.ResponseWriter, _ *http.Request) error {
	w.Header().Set("Content-Type", "application/json")
	_, err := w.Write(openAPI)
	return err
}
