package telemetry

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The kinds and states of background runs hone reports.
var (
	jobKinds  = []string{"workshop_analysis", "learning_synthesis"}
	jobStates = []string{"queued", "running", "done", "failed"}
)

// jobsTimeout bounds counting the runs for one scrape.
const jobsTimeout = 2 * time.Second

// WatchJobs reports, at each scrape, the background runs count gives: runs
// by kind and then by state, as the database holds them (so every server of
// one database reports the same numbers). A scrape while count fails leaves
// the runs out; the first of such scrapes in a row logs why.
func (m *Metrics) WatchJobs(count func(ctx context.Context) (map[string]map[string]int, error), log *slog.Logger) {
	if m == nil {
		return
	}
	m.reg.MustRegister(&jobsCollector{count: count, log: log, desc: prometheus.NewDesc("hone_jobs",
		"Background runs (workshop_analysis, learning_synthesis) in the database, by state: queued, running, done, failed.",
		[]string{"kind", "state"}, nil)})
}

// WatchWriterQueue reports, at each scrape, the SQLite writer's queue as
// depth gives it.
func (m *Metrics) WatchWriterQueue(depth func() int) {
	if m == nil {
		return
	}
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "hone_sqlite_writer_queue_depth",
		Help: "Write transactions waiting for SQLite's one writer or in the batch it is writing."},
		func() float64 { return float64(depth()) }))
}

// jobsCollector reads the runs at each scrape.
type jobsCollector struct {
	count func(ctx context.Context) (map[string]map[string]int, error)
	log   *slog.Logger
	desc  *prometheus.Desc
	// failing is set while counting fails, so that it is logged once.
	failing atomic.Bool
}

// Describe implements prometheus.Collector.
func (c *jobsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector: every kind and state, 0 when
// there is no such run.
func (c *jobsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), jobsTimeout)
	defer cancel()
	runs, err := c.count(ctx)
	if err != nil {
		if !c.failing.Swap(true) && c.log != nil {
			c.log.Warn("metrics: cannot count the background runs; hone_jobs is left out until the database answers", "err", err)
		}
		return
	}
	c.failing.Store(false)
	for _, kind := range jobKinds {
		for _, state := range jobStates {
			ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(runs[kind][state]), kind, state)
		}
	}
}
