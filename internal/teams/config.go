// Package teams is hone's Microsoft Teams adapter: the Bot Framework
// messaging endpoint (POST /api/messages) that hands a tester's message,
// a press of Teams' 👍/👎 feedback buttons and an alert's card button to a
// bots.Bot, and posts what it answers back through the Bot Connector. It
// speaks only the Bot Framework protocol; what answers and what is
// recorded lives in package bots.
package teams

import (
	"net"
	"net/netip"
	"strings"
	"time"

	hone "github.com/honehq/hone"
	"github.com/honehq/hone/internal/bots"
)

// Bot Framework endpoints and names the adapter uses unless told others.
const (
	// DefaultOpenIDMetadataURL is where the Bot Framework publishes the
	// keys that sign the tokens of requests from Teams.
	DefaultOpenIDMetadataURL = "https://login.botframework.com/v1/.well-known/openidconfiguration"
	// Issuer is the issuer of those tokens.
	Issuer = "https://api.botframework.com"
	// ConnectorScope is the scope of the adapter's own token for the Bot
	// Connector.
	ConnectorScope = "https://api.botframework.com/.default"
	// multiTenant is the token authority of a multi-tenant app registration.
	multiTenant = "botframework.com"
)

// Config is how the adapter reaches Teams.
type Config struct {
	// AppID is the bot's Microsoft App ID (the Entra app registration's
	// client id): the audience of tokens from Teams.
	AppID string
	// AppPassword is the app registration's client secret.
	AppPassword string
	// TenantID is the tenant of a single-tenant app registration; empty
	// for a multi-tenant one.
	TenantID string
	// NoAuth turns off token checks on requests and tokens on replies, for
	// a local emulator (the Microsoft 365 Agents Playground) only.
	NoAuth bool
	// Loopback says the listener the adapter is served on accepts only
	// loopback connections: NoAuth is refused without it.
	Loopback bool
	// OpenIDMetadataURL overrides DefaultOpenIDMetadataURL (tests).
	OpenIDMetadataURL string
	// TokenURL overrides the client-credentials token endpoint,
	// https://login.microsoftonline.com/<tenant or botframework.com>/oauth2/v2.0/token.
	TokenURL string
	// ClockSkew is how far token times may be off; 5 minutes when zero.
	ClockSkew time.Duration
	// Conversations keep the conversations' references and the turns of
	// the answers sent across restarts; nil keeps them in memory only.
	Conversations bots.Conversations
}

// Validate says what is wrong with c, naming the setting: an app id and
// password are needed unless NoAuth, and NoAuth only on a loopback
// listener.
func (c Config) Validate() error {
	if c.NoAuth {
		if !c.Loopback {
			return hone.FieldError("HONE_TEAMS_NO_AUTH",
				"HONE_TEAMS_NO_AUTH turns off Teams authentication and is allowed only when hone listens on loopback (127.0.0.1 or ::1)")
		}
		return nil
	}
	if strings.TrimSpace(c.AppID) == "" {
		return hone.FieldError("HONE_TEAMS_APP_ID", "HONE_TEAMS_APP_ID is needed: the bot's Microsoft App ID")
	}
	if c.AppPassword == "" {
		return hone.FieldError("HONE_TEAMS_APP_PASSWORD", "HONE_TEAMS_APP_PASSWORD is needed: the app registration's client secret")
	}
	return nil
}

// NoAuthWarning is what the module logs at start when c turns
// authentication off; "" when it does not.
func (c Config) NoAuthWarning() string {
	if !c.NoAuth {
		return ""
	}
	return "Teams authentication is OFF (HONE_TEAMS_NO_AUTH): for a local emulator on loopback only, never for Teams itself"
}

// IsLoopback says whether a listen address (host:port, as hone serve
// takes it) accepts only loopback connections; an empty host or a
// wildcard does not.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.IsLoopback()
}

func (c Config) openIDMetadataURL() string {
	if c.OpenIDMetadataURL != "" {
		return c.OpenIDMetadataURL
	}
	return DefaultOpenIDMetadataURL
}

func (c Config) tokenURL() string {
	if c.TokenURL != "" {
		return c.TokenURL
	}
	tenant := strings.TrimSpace(c.TenantID)
	if tenant == "" {
		tenant = multiTenant
	}
	return "https://login.microsoftonline.com/" + tenant + "/oauth2/v2.0/token"
}

func (c Config) clockSkew() time.Duration {
	if c.ClockSkew > 0 {
		return c.ClockSkew
	}
	return 5 * time.Minute
}
