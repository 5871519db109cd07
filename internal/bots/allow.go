package bots

import (
	"strings"
)

// Allow is who may talk to the bot: user ids, with or without their
// platform prefix, and Telegram usernames. Empty lets everyone.
type Allow []string

// ParseAllow reads HONE_CHAT_ALLOW: entries separated by commas or white
// space, a leading @ of a username dropped.
func ParseAllow(s string) Allow {
	var out Allow
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		out = append(out, strings.TrimPrefix(f, "@"))
	}
	return out
}

// Permits reports whether the sender of in may talk to the bot.
func (a Allow) Permits(in Incoming) bool {
	if len(a) == 0 {
		return true
	}
	for _, e := range a {
		switch {
		case e == in.UserID || e == in.Platform+":"+in.UserID:
			return true
		case in.Handle != "" && strings.EqualFold(e, in.Handle):
			return true
		}
	}
	return false
}
