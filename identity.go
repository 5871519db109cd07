package hone

import "context"

// Kinds of identity a request can carry.
const (
	// IdentityAdmin is whoever holds HONE_API_TOKEN, or signed in with it:
	// they may do anything.
	IdentityAdmin = "admin"
	// IdentityMember is a workshop member, acting in one workshop with a role.
	IdentityMember = "member"
	// IdentityLocal is anyone, on a hone run without HONE_API_TOKEN.
	IdentityLocal = "local"
	// IdentityAnonymous is someone who has not signed in, on the few open
	// routes (health, assets, sign-in, the API's description) of a hone run
	// with HONE_API_TOKEN.
	IdentityAnonymous = "anonymous"
)

// Identity is who makes a request. Every request that reaches a handler
// carries one in its context.
type Identity struct {
	Kind string `json:"kind"`
	// WorkshopID, MemberID and Role are set for a workshop member.
	WorkshopID string `json:"workshop_id,omitempty"`
	MemberID   string `json:"member_id,omitempty"`
	Role       string `json:"role,omitempty"`
}

// Admin is the identity of the holder of the API token.
var Admin = Identity{Kind: IdentityAdmin}

// Local is the identity of anyone when no API token is configured.
var Local = Identity{Kind: IdentityLocal}

type identityKey struct{}

// WithIdentity returns ctx carrying id.
func WithIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the identity ctx carries; false when it carries none.
func IdentityFrom(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(Identity)
	return id, ok
}
