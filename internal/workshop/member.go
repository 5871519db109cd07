package workshop

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
)

// Roles of a workshop member.
const (
	RoleFacilitator = "facilitator"
	RoleParticipant = "participant"
)

// Member is a person in a workshop: a facilitator or a participant (an SME).
// Their id is the spec's user_id.
type Member struct {
	ID         string    `json:"id"`
	WorkshopID string    `json:"workshop_id"`
	Name       string    `json:"name"`
	Email      string    `json:"email"`
	Role       string    `json:"role"`
	CreatedAt  time.Time `json:"created_at"`
	// Completed counts the traces the member finished in discovery: label,
	// comment and the three answers.
	Completed int `json:"completed"`
}

// Access is a member with their personal access token, shown once, when it
// is issued: the Bearer token of the API and the join link of the web UI.
type Access struct {
	Member
	Token   string `json:"token"`
	JoinURL string `json:"join_url"`
}

// JoinPath is the web path that signs a member in with their token.
func JoinPath(workshopID, token string) string { return "/w/" + workshopID + "/join/" + token }

// newToken returns a new personal access token and how it is kept.
func newToken() (token, hash string) {
	b := make([]byte, tokenBytes)
	_, _ = rand.Read(b)
	token = TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token)
}

// HashToken is how a member's token is kept: its SHA-256, in hex. A token
// is random and long, so no salt or stretching is needed.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// LooksLikeToken reports whether s has the form of a member's token, so
// that other Bearer tokens are not looked up.
func LooksLikeToken(s string) bool {
	return strings.HasPrefix(s, TokenPrefix) && len(s) == len(TokenPrefix)+tokenChars
}

// TokenPrefix starts every member's token; tokenBytes random bytes follow,
// as tokenChars characters of unpadded base64url.
const (
	TokenPrefix = "hw_"
	tokenBytes  = 24
	tokenChars  = tokenBytes * 4 / 3
)

func (p *Person) clean() {
	p.Name = strings.TrimSpace(hone.CleanText(p.Name))
	p.Email = strings.TrimSpace(hone.CleanText(p.Email))
	p.Role = strings.ToLower(strings.TrimSpace(hone.CleanText(p.Role)))
}

// validate reports the first field of p that is missing or wrong; prefix
// goes before the field names.
func (p *Person) validate(prefix string) error {
	p.clean()
	if p.Role == "" {
		p.Role = RoleParticipant
	}
	switch {
	case p.Name == "":
		return hone.FieldError(prefix+"name", "%sname is required", prefix)
	case hone.Chars(p.Name) > MaxNameLength:
		return hone.FieldError(prefix+"name", "%sname is longer than %d characters", prefix, MaxNameLength)
	case hone.Chars(p.Email) > MaxNameLength:
		return hone.FieldError(prefix+"email", "%semail is longer than %d characters", prefix, MaxNameLength)
	case p.Email != "" && !capture.ValidEmail(p.Email):
		return hone.FieldError(prefix+"email", "%semail %q is not an email address (name@domain, without spaces)", prefix, p.Email)
	case p.Role != RoleFacilitator && p.Role != RoleParticipant:
		return hone.FieldError(prefix+"role", "%srole must be facilitator or participant, not %q", prefix, p.Role)
	}
	return nil
}
