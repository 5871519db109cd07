package web_test

import (
	"context"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/honehq/hone/internal/browsertest"
	"github.com/honehq/hone/internal/learning"
)

// /learnings shows the system prompt the learning loop builds: the base
// prompt file, the learned section and their versions, for everyone or one
// tester.
func TestLearningsShowsTheSystemPrompt(t *testing.T) {
	eachDB(t, func(t *testing.T, databaseURL string) {
		e := lnOpen(t, databaseURL, false)
		c := e.client()
		page := c.page("/learnings")
		if !strings.Contains(page, `id="system-prompt"`) || !strings.Contains(page, lnPromptName) {
			t.Fatalf("/learnings does not show the system prompt and its base file:\n%s", page)
		}
		if m := lnFirst(regexp.MustCompile(`(?s)id="prompt-section-version">(.*?)</dd>`), page); !strings.Contains(m, "no active learning applies") {
			t.Errorf("without learnings the learned section says %q", m)
		}
		if strings.Contains(page, `id="prompt-section"`) {
			t.Error("an empty learned section is shown")
		}
		base := lnFirst(regexp.MustCompile(`(?s)<details id="prompt-base"><summary>Base prompt</summary><pre class="prompt">(.*?)</pre>`), page)
		if html.UnescapeString(base) != lnPromptText {
			t.Errorf("the base prompt shown is %q", base)
		}
		baseVersion := lnFirst(regexp.MustCompile(`id="prompt-base-version">(\w+)<`), page)

		ctx := context.Background()
		if _, err := e.App.Learning.Add(ctx, learning.LearningInput{PromptAdjustment: "Answer in bullet points."}); err != nil {
			t.Fatal(err)
		}
		want, err := e.App.Learning.View(ctx, "", lnPromptText, baseVersion, true)
		if err != nil {
			t.Fatal(err)
		}
		page = c.page("/learnings")
		section := html.UnescapeString(lnFirst(regexp.MustCompile(`(?s)<pre class="prompt" id="prompt-section">(.*?)</pre>`), page))
		if section != want.Section || !strings.Contains(section, "Answer in bullet points.") {
			t.Errorf("everyone's learned section is %q, want %q", section, want.Section)
		}
		if v := lnFirst(regexp.MustCompile(`id="prompt-version">([^<]+)<`), page); v != want.PromptVersion || !strings.HasPrefix(v, baseVersion+"+") {
			t.Errorf("the prompt version shown is %q, want %q", v, want.PromptVersion)
		}
		if m := lnFirst(regexp.MustCompile(`(?s)id="prompt-section-version">(.*?)</dd>`), page); !strings.Contains(m, want.Version) || !strings.Contains(m, "1 learning") {
			t.Errorf("the learned section's version reads %q, want %s with 1 learning", m, want.Version)
		}
		meg := c.page("/learnings?tester=meg")
		if !strings.Contains(meg, "for tester <code>meg</code>") || !strings.Contains(meg, "Answer in bullet points.") {
			t.Errorf("meg's system prompt is not shown as hers with everyone's learnings")
		}
		if err := e.App.Learning.SetEnabled(ctx, false); err != nil {
			t.Fatal(err)
		}
		if m := lnFirst(regexp.MustCompile(`(?s)id="prompt-section-version">(.*?)</dd>`), c.page("/learnings")); !strings.Contains(m, "learnings are off") {
			t.Errorf("with learnings off the learned section says %q", m)
		}
	})
}

func TestBrowserLearningsSystemPrompt(t *testing.T) {
	e := lnOpen(t, "", false)
	if _, err := e.App.Learning.Add(context.Background(), learning.LearningInput{PromptAdjustment: "Answer in bullet points."}); err != nil {
		t.Fatal(err)
	}
	b := browsertest.New(t)
	b.Navigate(e.base + "/learnings")
	if got := b.Text("#system-prompt h2"); got != "System prompt" {
		t.Errorf("the section's title is %q", got)
	}
	if got := b.Text("#prompt-section"); !strings.Contains(got, "Answer in bullet points.") {
		t.Errorf("the learned section shown is %q", got)
	}
	if got := b.Text("#prompt-base-name"); !strings.Contains(got, lnPromptName) || !strings.Contains(got, "version") {
		t.Errorf("the base prompt reads %q", got)
	}
	if visible := browsertest.Eval[bool](b, `document.getElementById("prompt-base").open`); visible {
		t.Error("the base prompt is open before it is asked for")
	}
	b.Click("#prompt-base summary")
	if got := b.Text("#prompt-base pre"); !strings.Contains(got, "You are ERA, an HR assistant.") {
		t.Errorf("the opened base prompt reads %q", got)
	}
	b.Type(`#system-prompt input[name="tester"]`, "meg")
	b.ClickNavigate(`#system-prompt button[type="submit"]`)
	if got := b.Text("#system-prompt p.muted"); !strings.Contains(got, "for tester meg") {
		t.Errorf("after choosing meg the section says %q", got)
	}
}
