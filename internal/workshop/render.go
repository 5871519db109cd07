package workshop

import (
	"fmt"
	"strings"
)

// render writes an analysis as the spec's markdown analysis_data, from its
// structured results.
func render(w *Workshop, tpl *Template, a *Analysis) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Discovery analysis: %s\n\n", tpl.Title)
	fmt.Fprintf(&b, "Workshop %s, based on the feedback of %d participant(s)", w.Name, a.ParticipantCount)
	if a.Model != "" {
		fmt.Fprintf(&b, "; model %s", a.Model)
	}
	b.WriteString(".\n\n")
	if a.Summary != "" {
		b.WriteString("## Summary\n\n" + a.Summary + "\n\n")
	}
	if len(a.Warnings) > 0 {
		b.WriteString("## Warnings\n\n")
		for _, warn := range a.Warnings {
			b.WriteString("- " + warn + "\n")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "## Findings (%d)\n\n", len(a.Findings))
	if len(a.Findings) == 0 {
		b.WriteString("None.\n\n")
	}
	for i, f := range a.Findings {
		fmt.Fprintf(&b, "%d. **[%s]** %s", i+1, strings.ToUpper(f.Priority), f.Text)
		if len(f.EvidenceTraceIDs) > 0 {
			fmt.Fprintf(&b, " _(evidence: %s)_", strings.Join(f.EvidenceTraceIDs, ", "))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n## Disagreements\n\n")
	for _, tier := range []struct {
		title string
		list  []Disagreement
	}{{"HIGH: rating disagreements (GOOD and BAD)", a.Disagreements.High},
		{"MEDIUM: both BAD, different issues", a.Disagreements.Medium},
		{"LOWER: both GOOD, different strengths", a.Disagreements.Lower}} {
		fmt.Fprintf(&b, "### %s (%d)\n\n", tier.title, len(tier.list))
		for _, d := range tier.list {
			fmt.Fprintf(&b, "#### Trace %s\n\n", d.TraceID)
			for _, r := range d.Reviews {
				fmt.Fprintf(&b, "- %s: **%s**: %s\n", reviewer(r), strings.ToUpper(r.Label), oneLine(r.Comment))
			}
			if x := d.Analysis; x != nil {
				fmt.Fprintf(&b, "\n**What they disagree about:** %s\n\n**Underlying theme:** %s\n", x.Summary, x.UnderlyingTheme)
				writeList(&b, "Follow-up questions", x.FollowupQuestions)
				writeList(&b, "Calibration suggestions", x.FacilitatorSuggestions)
			}
			b.WriteString("\n")
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

func writeList(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "\n**%s:**\n\n", title)
	for _, it := range items {
		b.WriteString("- " + oneLine(it) + "\n")
	}
}

// oneLine keeps text on one markdown line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
