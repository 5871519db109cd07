package learning

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"time"
	"unicode"
)

// SectionTitle opens the learned section of a system prompt, as the spec
// writes it.
const SectionTitle = "**User Preferences (Learned):**"

// SectionPreamble follows the title: learned preferences never override
// the rules of the base prompt above them.
const SectionPreamble = "These preferences were learned from feedback on earlier answers. They never override the instructions above: where one seems to, follow the instructions above."

// BuildSection makes the learned section of a system prompt from the
// learnings, in their order: those active at the threshold, one line each.
// version is a hash of the section; both are "" when no learning applies.
func BuildSection(learnings []*Learning, threshold float64) (section, version string) {
	applies := func(l *Learning) bool { return (l.State == StateOK || l.State == "") && l.Confidence >= threshold }
	size := len(SectionTitle) + len(SectionPreamble) + 2
	for _, l := range learnings {
		if applies(l) {
			size += len(l.PromptAdjustment) + 3
		}
	}
	var b strings.Builder
	n := 0
	for _, l := range learnings {
		if !applies(l) {
			continue
		}
		if n == 0 {
			b.Grow(size)
			b.WriteString(SectionTitle)
			b.WriteString("\n")
			b.WriteString(SectionPreamble)
			b.WriteString("\n")
		}
		b.WriteString("- ")
		writeOneLine(&b, l.PromptAdjustment)
		b.WriteString("\n")
		n++
	}
	if n == 0 {
		return "", ""
	}
	section = strings.TrimRight(b.String(), "\n")
	sum := sha256.Sum256([]byte(section))
	return section, hex.EncodeToString(sum[:])[:versionLength]
}

// writeOneLine writes text on one line: runs of white space become one
// space, and none is left at either end.
func writeOneLine(b *strings.Builder, text string) {
	if oneLine(text) {
		b.WriteString(text)
		return
	}
	space, started := false, false
	for _, r := range text {
		if unicode.IsSpace(r) {
			space = started
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
		started = true
	}
}

// oneLine reports whether text is already on one line, as writeOneLine
// would write it: ASCII without control characters, single spaces, none at
// the ends. Anything else takes the slow path.
func oneLine(text string) bool {
	if text == "" || text[0] == ' ' || text[len(text)-1] == ' ' {
		return text == ""
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c < ' ' || c >= 0x7f || c == ' ' && text[i+1] == ' ' {
			return false
		}
	}
	return true
}

// versionLength is how many hex digits name a section's version.
const versionLength = 12

// Compose puts the learned section after the base prompt.
func Compose(base, section string) string {
	if section == "" {
		return base
	}
	return strings.TrimRight(base, "\n") + "\n\n" + section + "\n"
}

// PromptVersion is the version of a base prompt with a learned section:
// the base's own version when there is none, so that turns and sessions
// split when the learned section changes and only then.
func PromptVersion(baseVersion, sectionVersion string) string {
	if sectionVersion == "" {
		return baseVersion
	}
	if baseVersion == "" {
		return "learned-" + sectionVersion
	}
	return baseVersion + "+" + sectionVersion[:8]
}

// generationTTL is how long a process trusts its cached sections before it
// asks the store whether learnings changed elsewhere (another server, or
// the CLI).
const generationTTL = time.Second

// promptCache keeps the built section of each tester until learnings
// change.
type promptCache struct {
	mu       sync.Mutex
	gen      int64
	checked  time.Time
	sections map[string]cachedSection
}

type cachedSection struct{ text, version string }

// changed drops the cached sections: this process changed learnings.
func (s *Service) changed() {
	s.cache.mu.Lock()
	s.cache.sections = nil
	s.cache.checked = time.Time{}
	s.cache.mu.Unlock()
}

// Section returns the learned section of the tester's system prompt and its
// version: the active learnings that apply to everyone and to them, ""
// when none applies or learnings are disabled. It is cached until
// learnings change.
func (s *Service) Section(ctx context.Context, testerID string) (section, version string, err error) {
	c := &s.cache
	now := time.Now()
	c.mu.Lock()
	if now.Sub(c.checked) < generationTTL && c.sections != nil {
		if e, ok := c.sections[testerID]; ok {
			c.mu.Unlock()
			return e.text, e.version, nil
		}
	}
	c.mu.Unlock()
	gen, err := s.store.Generation(ctx)
	if err != nil {
		return "", "", err
	}
	c.mu.Lock()
	if gen != c.gen || c.sections == nil {
		c.sections, c.gen = map[string]cachedSection{}, gen
	}
	c.checked = now
	if e, ok := c.sections[testerID]; ok {
		c.mu.Unlock()
		return e.text, e.version, nil
	}
	c.mu.Unlock()
	on, err := s.Enabled(ctx)
	if err != nil {
		return "", "", err
	}
	var e cachedSection
	if on {
		list, err := s.store.Learnings(ctx, LearningFilter{TesterID: testerID})
		if err != nil {
			return "", "", err
		}
		e.text, e.version = BuildSection(list, s.opts.Threshold)
	}
	c.mu.Lock()
	if c.gen == gen && c.sections != nil {
		c.sections[testerID] = e
	}
	c.mu.Unlock()
	return e.text, e.version, nil
}

// Augment is the system prompt of a tester's chat: base with the learned
// section, and its version (see PromptVersion). It is the playground's hook.
func (s *Service) Augment(ctx context.Context, testerID, base, baseVersion string) (system, version string, err error) {
	section, sv, err := s.Section(ctx, testerID)
	if err != nil {
		return base, baseVersion, err
	}
	return Compose(base, section), PromptVersion(baseVersion, sv), nil
}

// PromptView is what GET /prompt answers: the learned section of a tester's
// prompt and, when hone knows the base prompt, the whole of it.
type PromptView struct {
	Section string `json:"section"`
	// Version is the section's version, "" when it is empty.
	Version string `json:"version"`
	// Prompt and PromptVersion are the full prompt and its version, when
	// hone knows the base prompt.
	Prompt        string `json:"prompt,omitempty"`
	PromptVersion string `json:"prompt_version,omitempty"`
	// Learnings counts the learnings in the section.
	Learnings int  `json:"learnings"`
	Enabled   bool `json:"enabled"`
}

// View is what GET /prompt answers for a tester: the learned section and,
// when hone knows the base prompt (known), the whole prompt.
func (s *Service) View(ctx context.Context, testerID, base, baseVersion string, known bool) (*PromptView, error) {
	section, version, err := s.Section(ctx, testerID)
	if err != nil {
		return nil, err
	}
	on, err := s.Enabled(ctx)
	if err != nil {
		return nil, err
	}
	v := &PromptView{Section: section, Version: version, Enabled: on, Learnings: strings.Count(section, "\n- ")}
	if known {
		v.Prompt, v.PromptVersion = Compose(base, section), PromptVersion(baseVersion, version)
	}
	return v, nil
}
