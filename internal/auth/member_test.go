package auth_test

import (
	"context"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/auth"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
)

func TestMemberCookie(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		a := newAuth(db, newClock(), auth.Options{})
		const token = "hw_abcdefghijklmnopqrstuvwxyz012345"
		v, err := a.MemberCookieValue(ctx, "ws1", token)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok, err := a.MemberCookieToken(ctx, "ws1", v); !ok || err != nil || got != token {
			t.Fatalf("MemberCookieToken(own value) = %q %v %v", got, ok, err)
		}
		for what, bad := range map[string]string{
			"the bare token":         token,
			"another workshop's":     "ws2",
			"a changed token":        strings.Replace(v, "hw_a", "hw_b", 1),
			"a changed signature":    v[:len(v)-1] + map[bool]string{true: "B", false: "A"}[strings.HasSuffix(v, "A")],
			"another version":        "v0" + strings.TrimPrefix(v, "v1"),
			"no signature":           "v1." + token,
			"empty":                  "",
			"a newline in the token": "v1.a\nb." + v[strings.LastIndexByte(v, '.')+1:],
		} {
			wid, value := "ws1", bad
			if what == "another workshop's" {
				wid, value = "ws2", v
			}
			if got, ok, err := a.MemberCookieToken(ctx, wid, value); ok || err != nil {
				t.Errorf("%s: MemberCookieToken = %q %v %v, want refused", what, got, ok, err)
			}
		}
		if err := a.Rotate(ctx); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := a.MemberCookieToken(ctx, "ws1", v); ok || err != nil {
			t.Errorf("after a rotation: ok %v err %v, want refused", ok, err)
		}
	})
}
