package workshop

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/llm"
)

// distillSystem is the spec's DistillFindings signature, as the system prompt.
const distillSystem = `Analyze participant feedback to extract findings and disagreement insights.

You get three inputs: instruction (the template-specific analysis instruction), feedback_data (the feedback
aggregated by trace, with each trace's input and output) and detected_disagreements (the traces whose
reviewers disagree, by priority tier, detected from the labels). Answer with the output: findings (each with
its text, the evidence_trace_ids it rests on, taken from feedback_data, and a priority of high, medium or
low), an analysis of each detected disagreement in the list of its tier (high_priority_disagreements,
medium_priority_disagreements, lower_priority_disagreements; trace_id as given), and a brief overall summary.`

// mergeSystem merges the findings of the chunks of a large workshop.
const mergeSystem = `Merge the findings distilled from separate parts of one workshop's participant feedback into one list.

Findings that describe the same criterion or theme become one finding whose evidence_trace_ids unite theirs and
whose priority is the highest of theirs; the others are kept as they are. Keep every evidence trace id given;
invent none. Then write a brief overall summary from the parts' summaries. Follow the instruction the parts
were analysed with.`

// mergedFindings is the typed answer of the merge call.
type mergedFindings struct {
	Findings []Finding `json:"findings"`
	Summary  string    `json:"summary"`
}

// chunkReserve is the share of the token budget kept for the instruction,
// the detected disagreements and the answer.
const chunkReserve = 0.4

// estimateTokens guesses the tokens of text: about four characters a token.
func estimateTokens(text string) int { return (len(text) + 3) / 4 }

// analyse computes a claimed analysis: aggregation, tiers, and, with an
// LLM, the distillation, in chunks when the workshop is larger than its
// token budget. progress gets chunks done of total.
func (s *Service) analyse(ctx context.Context, a *Analysis, progress func(done, total int)) error {
	w, err := s.store.Workshop(ctx, a.WorkshopID)
	if err != nil {
		return err
	}
	tpl, err := s.template(ctx, w.ID, a.Template)
	if err != nil {
		return err
	}
	ms, err := s.members(ctx, w.ID)
	if err != nil {
		return err
	}
	traces, err := s.store.Traces(ctx, w.ID, 0)
	if err != nil {
		return err
	}
	fb, err := s.store.ListFeedback(ctx, FeedbackFilter{WorkshopID: w.ID})
	if err != nil {
		return err
	}
	names := make(map[string]string, len(ms.list))
	for _, m := range ms.list {
		names[m.ID] = m.Name
	}
	agg := Aggregate(traces, fb, names)
	a.Disagreements = DetectDisagreements(agg)
	a.ParticipantCount = participants(agg)
	a.Findings, a.Warnings, a.DroppedEvidence, a.Summary = []Finding{}, []string{}, 0, ""
	if a.ParticipantCount < 2 {
		a.Warnings = append(a.Warnings, fmt.Sprintf("The analysis rests on %d participant(s): with fewer than 2 there can be no disagreement, and findings reflect one view.", a.ParticipantCount))
	}
	defer func() { a.AnalysisData = render(w, tpl, a) }()
	if s.opts.LLM == nil {
		_, err := s.LLMConfigured()
		a.Warnings = append(a.Warnings, "Only the aggregation and the disagreement tiers were computed: the LLM part needs an LLM. "+hone.ErrorMessage(err))
		return nil
	}
	model := firstNonEmpty(a.ModelRequested, w.Model)
	a.Model = firstNonEmpty(model, s.opts.LLM.Model(llm.PurposeAnalysis))
	if len(agg) == 0 {
		a.Warnings = append(a.Warnings, "There is no feedback yet: nothing was sent to the LLM.")
		return nil
	}
	budget := w.TokenBudget
	if budget <= 0 {
		budget = DefaultTokenBudget
	}
	chunks, big := chunk(agg, int(float64(budget)*(1-chunkReserve))-estimateTokens(tpl.Instruction))
	for _, id := range big {
		a.Warnings = append(a.Warnings, fmt.Sprintf("The feedback of trace %s alone is larger than the token budget (%d): it was sent whole, in a part of its own.", id, budget))
	}
	total := len(chunks)
	if total > 1 {
		total++
		a.Warnings = append(a.Warnings, fmt.Sprintf("The feedback was larger than the token budget (%d): it was analysed in %d parts whose findings were merged.", budget, len(chunks)))
	}
	a.ChunksTotal, a.ChunksDone = total, 0
	progress(0, total)
	known := make(map[string]bool, len(traces))
	for _, t := range traces {
		known[t.ID] = true
	}
	var parts []DistillationOutput
	for _, c := range chunks {
		out, used, err := s.distill(ctx, a, w, tpl, c, model)
		if err != nil {
			return err
		}
		if used != "" {
			a.Model = used
		}
		parts = append(parts, out)
		a.ChunksDone++
		progress(a.ChunksDone, total)
	}
	merged := parts[0]
	if len(parts) > 1 {
		if merged, err = s.merge(ctx, a, tpl, parts, model); err != nil {
			return err
		}
		a.ChunksDone++
		progress(a.ChunksDone, total)
	}
	a.Findings, a.Summary = s.keepKnown(a, merged.Findings, known), strings.TrimSpace(merged.Summary)
	s.mergeAnalyses(a, parts, known)
	return nil
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

// chunk packs the traces into chunks of at most budget estimated tokens,
// in order; a trace larger than budget gets a chunk of its own and is
// listed in big.
func chunk(agg []TraceFeedback, budget int) (chunks [][]TraceFeedback, big []string) {
	var cur []TraceFeedback
	used := 0
	for _, t := range agg {
		n := estimateTokens(formatTrace(t))
		if n > budget {
			big = append(big, t.TraceID)
		}
		if len(cur) > 0 && used+n > budget {
			chunks, cur, used = append(chunks, cur), nil, 0
		}
		cur = append(cur, t)
		used += n
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks, big
}

// formatTrace writes one trace's feedback for feedback_data.
func formatTrace(t TraceFeedback) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Trace %s\nInput: %s\nOutput: %s\nFeedback:\n", t.TraceID, t.Input, t.Output)
	for _, r := range t.Reviews {
		fmt.Fprintf(&b, "- %s: %s — %s\n", reviewer(r), strings.ToUpper(r.Label), r.Comment)
		for i, qa := range r.QnA {
			fmt.Fprintf(&b, "  Q%d: %s\n  A%d: %s\n", i+1, qa.Question, i+1, qa.Answer)
		}
	}
	return b.String()
}

func reviewer(r Review) string {
	if r.Name != "" {
		return r.Name + " (" + r.UserID + ")"
	}
	return r.UserID
}

// formatTiers writes the detected disagreements of the traces of chunk.
func formatTiers(chunk []TraceFeedback) string {
	d := DetectDisagreements(chunk)
	var b strings.Builder
	for _, tier := range []struct {
		name string
		list []Disagreement
	}{{"HIGH (rating disagreement: one GOOD, another BAD)", d.High},
		{"MEDIUM (both BAD, different issues)", d.Medium},
		{"LOWER (both GOOD, different strengths)", d.Lower}} {
		ids := make([]string, len(tier.list))
		for i, x := range tier.list {
			ids[i] = x.TraceID
		}
		list := strings.Join(ids, ", ")
		if list == "" {
			list = "(none)"
		}
		fmt.Fprintf(&b, "%s: %s\n", tier.name, list)
	}
	return b.String()
}

// distill runs the DistillFindings call on one chunk.
func (s *Service) distill(ctx context.Context, a *Analysis, w *Workshop, tpl *Template, chunk []TraceFeedback, model string) (DistillationOutput, string, error) {
	var data strings.Builder
	for _, t := range chunk {
		data.WriteString(formatTrace(t))
		data.WriteString("\n")
	}
	user := "## instruction\n" + tpl.Instruction + "\n\n## feedback_data\n" + data.String() +
		"## detected_disagreements\n" + formatTiers(chunk)
	if w.Description != "" {
		user = "## workshop\n" + w.Name + ": " + w.Description + "\n\n" + user
	}
	out, resp, err := llm.Generate[DistillationOutput](ctx, s.opts.LLM, llm.Request{Purpose: llm.PurposeAnalysis,
		CauseType: "discovery_analysis", CauseID: a.ID, Model: model,
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: distillSystem}, {Role: llm.RoleUser, Content: user}}})
	if err != nil {
		return out, "", err
	}
	return out, resp.Model, nil
}

// merge runs the call that merges the findings of several chunks.
func (s *Service) merge(ctx context.Context, a *Analysis, tpl *Template, parts []DistillationOutput, model string) (DistillationOutput, error) {
	type part struct {
		Findings []Finding `json:"findings"`
		Summary  string    `json:"summary"`
	}
	in := make([]part, len(parts))
	for i, p := range parts {
		in[i] = part{Findings: p.Findings, Summary: p.Summary}
	}
	b, _ := json.MarshalIndent(in, "", "  ")
	user := "## instruction\n" + tpl.Instruction + "\n\n## parts\n" + string(b)
	out, _, err := llm.Generate[mergedFindings](ctx, s.opts.LLM, llm.Request{Purpose: llm.PurposeAnalysis,
		CauseType: "discovery_analysis", CauseID: a.ID, Model: model,
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: mergeSystem}, {Role: llm.RoleUser, Content: user}}})
	if err != nil {
		return DistillationOutput{}, err
	}
	return DistillationOutput{Findings: out.Findings, Summary: out.Summary}, nil
}

// keepKnown returns the findings with their evidence limited to traces of
// the workshop, counting what was dropped in a; findings without text are
// left out, and priorities are made high, medium or low.
func (s *Service) keepKnown(a *Analysis, findings []Finding, known map[string]bool) []Finding {
	out := []Finding{}
	for _, f := range findings {
		f.Text = strings.TrimSpace(hone.CleanText(f.Text))
		if f.Text == "" {
			continue
		}
		ids := []string{}
		for _, id := range f.EvidenceTraceIDs {
			switch {
			case !known[id]:
				a.DroppedEvidence++
			case !slices.Contains(ids, id):
				ids = append(ids, id)
			}
		}
		f.EvidenceTraceIDs = ids
		f.Priority = strings.ToLower(strings.TrimSpace(f.Priority))
		if f.Priority != PriorityHigh && f.Priority != PriorityLow {
			f.Priority = PriorityMedium
		}
		out = append(out, f)
	}
	if a.DroppedEvidence > 0 {
		a.Warnings = append(a.Warnings, fmt.Sprintf("The LLM cited %d trace id(s) that are not traces of this workshop; they were left out.", a.DroppedEvidence))
	}
	return out
}

// mergeAnalyses puts the LLM's analysis of each disagreement beside the
// detected one, by trace id; analyses of traces that are not detected
// disagreements are dropped and counted.
func (s *Service) mergeAnalyses(a *Analysis, parts []DistillationOutput, known map[string]bool) {
	where := map[string]*Disagreement{}
	for _, tier := range []*[]Disagreement{&a.Disagreements.High, &a.Disagreements.Medium, &a.Disagreements.Lower} {
		for i := range *tier {
			where[(*tier)[i].TraceID] = &(*tier)[i]
		}
	}
	dropped := 0
	for _, p := range parts {
		for _, list := range [][]DisagreementAnalysis{p.HighPriorityDisagreements, p.MediumPriorityDisagreements, p.LowerPriorityDisagreements} {
			for _, da := range list {
				d := where[da.TraceID]
				if d == nil {
					if !known[da.TraceID] {
						dropped++
					}
					continue
				}
				if d.Analysis == nil {
					x := da
					d.Analysis = &x
				}
			}
		}
	}
	if dropped > 0 {
		a.DroppedEvidence += dropped
		a.Warnings = append(a.Warnings, fmt.Sprintf("The LLM analysed %d disagreement(s) of traces that are not traces of this workshop; they were left out.", dropped))
	}
}
