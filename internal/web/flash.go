package web

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"unicode/utf8"
)

// flashCookie carries a message from a form's action to the page it
// redirects to, which shows it once.
const flashCookie = "hone_flash"

// flashLimit bounds a flash's encoded size, under browsers' 4 KB a cookie.
const flashLimit = 3000

// Flash is a message a page shows once, after the action that led there.
type Flash struct {
	// Notice says what was done; Error what went wrong.
	Notice string `json:"n,omitempty"`
	Error  string `json:"e,omitempty"`
	// Lines detail Error, such as the invalid lines of an import.
	Lines []string `json:"l,omitempty"`
	// Link is a URL to copy (a member's join link), named by LinkLabel.
	Link      string `json:"u,omitempty"`
	LinkLabel string `json:"k,omitempty"`
	// Turn, when set, is the number of the session's turn the message is
	// about: the session page shows it there.
	Turn int `json:"t,omitempty"`
}

// setFlash keeps f for the next page this browser renders. What does not
// fit in a cookie is cut, the lines first.
func setFlash(w http.ResponseWriter, r *http.Request, f Flash) {
	encode := func() string {
		b, _ := json.Marshal(f)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	v := encode()
	for len(v) > flashLimit && len(f.Lines) > 0 {
		f.Lines = f.Lines[:len(f.Lines)-1]
		v = encode()
	}
	if len(v) > flashLimit {
		f.Error, f.Notice = truncate(f.Error, 200), truncate(f.Notice, 200)
		v = encode()
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: v, Path: "/", MaxAge: 120, HttpOnly: true,
		Secure: secureCookies(r), SameSite: http.SameSiteLaxMode})
}

// takeFlash returns the flash r carries, if any, and clears it.
func takeFlash(w http.ResponseWriter, r *http.Request) *Flash {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return nil
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		Secure: secureCookies(r), SameSite: http.SameSiteLaxMode})
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	var f Flash
	if err != nil || json.Unmarshal(b, &f) != nil {
		return nil
	}
	return &f
}

// truncate cuts s to at most n characters, marking the cut with "…".
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
