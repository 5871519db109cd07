package telemetry

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestJobsReportEveryKindAndState: every kind and state is reported, 0
// when the database holds no such run; a database that does not answer
// leaves the runs out of the scrape, logged once however many scrapes fail.
func TestJobsReportEveryKindAndState(t *testing.T) {
	var logged bytes.Buffer
	m := New()
	var fail error
	m.WatchJobs(func(ctx context.Context) (map[string]map[string]int, error) {
		if fail != nil {
			return nil, fail
		}
		return map[string]map[string]int{"workshop_analysis": {"done": 2, "queued": 1}, "learning_synthesis": {"failed": 1}}, nil
	}, slog.New(slog.NewTextHandler(&logged, nil)))
	want := `# HELP hone_jobs Background runs (workshop_analysis, learning_synthesis) in the database, by state: queued, running, done, failed.
# TYPE hone_jobs gauge
hone_jobs{kind="learning_synthesis",state="done"} 0
hone_jobs{kind="learning_synthesis",state="failed"} 1
hone_jobs{kind="learning_synthesis",state="queued"} 0
hone_jobs{kind="learning_synthesis",state="running"} 0
hone_jobs{kind="workshop_analysis",state="done"} 2
hone_jobs{kind="workshop_analysis",state="failed"} 0
hone_jobs{kind="workshop_analysis",state="queued"} 1
hone_jobs{kind="workshop_analysis",state="running"} 0
`
	if err := testutil.GatherAndCompare(m.reg, strings.NewReader(want), "hone_jobs"); err != nil {
		t.Error(err)
	}
	fail = errors.New("database is down")
	for range 3 {
		if n, err := testutil.GatherAndCount(m.reg, "hone_jobs"); n != 0 || err != nil {
			t.Errorf("a scrape while the database is down: %d series, %v", n, err)
		}
	}
	if n := strings.Count(logged.String(), "cannot count the background runs"); n != 1 {
		t.Errorf("logged %d times:\n%s", n, logged.String())
	}
}
