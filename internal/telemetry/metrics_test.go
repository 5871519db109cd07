package telemetry

import (
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/llm"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestLabelsHoldOnlyKnownValues: a value hone does not know (a method a
// client made up, a source or purpose from nowhere) counts as other, so
// that no label grows with what clients send.
func TestLabelsHoldOnlyKnownValues(t *testing.T) {
	m := New()
	m.ObserveRequest("api", "/api/v1/turns", "BREW", 405, time.Millisecond)
	m.ObserveRequest("api", "", "GET", 999, time.Millisecond)
	m.TurnsRecorded("my own source", 2)
	m.ScoresRecorded("a user's text", "emoji", 1)
	m.ObserveLLMCall("poetry", "exploded", time.Second, llm.Usage{PromptTokens: 3})
	m.ObserveDBCall("truncate", time.Millisecond, true)
	for _, c := range []struct {
		c    prometheus.Collector
		want string
	}{
		{m.requests, `hone_http_requests_total{code="405",face="api",method="OTHER",route="/api/v1/turns"} 1
hone_http_requests_total{code="other",face="api",method="GET",route="(none)"} 1`},
		{m.turns, `hone_turns_recorded_total{source="api"} 0
hone_turns_recorded_total{source="chat"} 0
hone_turns_recorded_total{source="import"} 0
hone_turns_recorded_total{source="otlp"} 0
hone_turns_recorded_total{source="other"} 2
hone_turns_recorded_total{source="proxy"} 0`},
		{m.scores, `hone_scores_recorded_total{data_type="other",source="other"} 1`},
		{m.dbUnavailable, `hone_db_unavailable_total{op="other"} 1
hone_db_unavailable_total{op="read"} 0
hone_db_unavailable_total{op="write"} 0`},
	} {
		name := strings.SplitN(c.want, "{", 2)[0]
		if err := testutil.CollectAndCompare(c.c, strings.NewReader(header(m, name)+c.want+"\n"), name); err != nil {
			t.Error(err)
		}
	}
	if got := testutil.ToFloat64(m.llmCalls.WithLabelValues("other", "other")); got != 1 {
		t.Errorf("the unknown LLM call counts %v under other/other", got)
	}
	if got := testutil.ToFloat64(m.llmTokens.WithLabelValues("other", "prompt")); got != 3 {
		t.Errorf("its prompt tokens: %v", got)
	}
}

// header is the HELP and TYPE lines of the metric name, as m describes it.
func header(m *Metrics, name string) string {
	mfs, _ := m.reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == name {
			return "# HELP " + name + " " + mf.GetHelp() + "\n# TYPE " + name + " " + strings.ToLower(mf.GetType().String()) + "\n"
		}
	}
	return ""
}

// TestNilMetricsCountNothing: the hooks of hone without metrics may be
// called.
func TestNilMetricsCountNothing(t *testing.T) {
	var m *Metrics
	m.ObserveRequest("api", "/", "GET", 200, 0)
	m.TurnsRecorded("api", 1)
	m.ScoresRecorded("api", "numeric", 1)
	m.ObserveLLMCall("chat", "ok", 0, llm.Usage{})
	m.ObserveDBCall("read", 0, false)
	m.WatchJobs(nil, nil)
	m.WatchWriterQueue(nil)
	if err := m.Register(prometheus.NewCounter(prometheus.CounterOpts{Name: "hone_x_total", Help: "x"})); err != nil {
		t.Error(err)
	}
}

// TestRegistryPerMetrics: two hones in one process count apart, and each
// module's own collector goes into its hone's registry only.
func TestRegistryPerMetrics(t *testing.T) {
	a, b := New(), New()
	a.TurnsRecorded("api", 3)
	if got := testutil.ToFloat64(b.turns.WithLabelValues("api")); got != 0 {
		t.Errorf("the other registry counts %v turns", got)
	}
	mine := prometheus.NewCounter(prometheus.CounterOpts{Name: "hone_module_things_total", Help: "Things."})
	if err := a.Register(mine); err != nil {
		t.Fatal(err)
	}
	if n, _ := testutil.GatherAndCount(a.reg, "hone_module_things_total"); n != 1 {
		t.Errorf("the module's metric: %d series", n)
	}
	if n, _ := testutil.GatherAndCount(b.reg, "hone_module_things_total"); n != 0 {
		t.Errorf("the module's metric in the other registry: %d series", n)
	}
}
