package web

import (
	"context"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/learning"
)

// promptView is the dynamic system prompt /learnings shows: the base prompt,
// the learned section and their versions, for everyone or one tester.
type promptView struct {
	*learning.PromptView
	Tester string
	// Base and BaseVersion are the first prompt file's, when hone has one;
	// BaseName names it, BaseError says why it could not be read.
	Base        string
	BaseVersion string
	BaseName    string
	BaseError   string
}

// systemPrompt builds the prompt view of tester through the learning loop,
// the same call GET /api/v1/prompt answers with.
func (u *UI) systemPrompt(ctx context.Context, tester string) (*promptView, error) {
	pv := &promptView{Tester: strings.TrimSpace(hone.CleanText(tester))}
	known := false
	if u.Prompts != nil {
		if list := u.Prompts(); len(list) > 0 {
			pv.BaseName = list[0].Name()
			text, version, err := list[0].Current()
			if err != nil {
				pv.BaseError = hone.ErrorMessage(err)
			} else {
				pv.Base, pv.BaseVersion, known = text, version, true
			}
		}
	}
	v, err := u.Learning.View(ctx, pv.Tester, pv.Base, pv.BaseVersion, known)
	if err != nil {
		return nil, err
	}
	pv.PromptView = v
	return pv, nil
}
