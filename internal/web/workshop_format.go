package web

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/honehq/hone/internal/workshop"
)

func asImportError(err error, target **workshop.ImportError) bool { return errors.As(err, target) }

// plural is "1 one" or "n many".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// lineText is an invalid line of an import, as a page lists it.
func lineText(l workshop.LineError) string {
	return fmt.Sprintf("Line %d: %s", l.Line, l.Message)
}

// listLines lists the invalid lines of an import in f, as many as its
// cookie holds, and then a sentence counting the others: those the import
// did not list (notListed) and those left out here.
func listLines(f *Flash, lines []workshop.LineError, notListed int) {
	total := len(lines) + notListed
	var shown []string
	for _, l := range lines {
		f.Lines = append(slices.Clone(shown), lineText(l))
		if more := total - len(f.Lines); more > 0 {
			f.Lines = append(f.Lines, notListedText(more))
		}
		if !flashFits(*f) {
			break
		}
		shown = append(shown, lineText(l))
	}
	f.Lines = shown
	if more := total - len(shown); more > 0 {
		f.Lines = append(f.Lines, notListedText(more))
	}
}

func notListedText(n int) string { return fmt.Sprintf("… and %d more, not listed here.", n) }

// flashFits reports whether setFlash keeps f whole.
func flashFits(f Flash) bool {
	b, _ := json.Marshal(f)
	return base64.RawURLEncoding.EncodedLen(len(b)) <= flashLimit
}

// tracePath is the page of a trace of a workshop.
func tracePath(workshopID, traceID string) string {
	return workshopPath(workshopID) + "/traces/" + url.PathEscape(traceID)
}

// sourceLabels are the names the draft rubric panel gives its items' sources.
var sourceLabels = map[string]string{
	workshop.SourceFinding:      "Analysis finding",
	workshop.SourceDisagreement: "Disagreement",
	workshop.SourceFeedback:     "Feedback",
	workshop.SourceManual:       "Manual",
}

// phaseLabels are the names pages give the phases.
var phaseLabels = map[string]string{
	workshop.PhaseIntake:         "Intake",
	workshop.PhaseDiscovery:      "Discovery",
	workshop.PhaseRubricCreation: "Rubric creation",
	workshop.PhaseAnnotation:     "Annotation",
	workshop.PhaseJudgeTuning:    "Judge tuning",
}

// prettyJSON indents JSON for reading; what does not parse is shown as is.
func prettyJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// fixed shows a statistic with two decimals, "—" when it is undefined.
func fixed(f *float64) string {
	if f == nil {
		return "—"
	}
	return fmt.Sprintf("%.2f", *f)
}

// disagreementText is what promoting a disagreement the LLM did not analyse
// puts in the draft rubric: who said what.
func disagreementText(d workshop.Disagreement) string {
	parts := make([]string, len(d.Reviews))
	for i, r := range d.Reviews {
		parts[i] = fmt.Sprintf("%s (%s): %s", r.Name, r.Label, r.Comment)
	}
	return "Reviewers disagree on trace " + d.TraceID + ": " + strings.Join(parts, "; ")
}

// dict makes a map of its key and value arguments, for passing several
// values to a template.
func dict(kv ...any) (map[string]any, error) {
	if len(kv)%2 != 0 {
		return nil, errors.New("dict takes keys and values in pairs")
	}
	m := make(map[string]any, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			return nil, fmt.Errorf("dict key %v is not a string", kv[i])
		}
		m[k] = kv[i+1]
	}
	return m, nil
}
