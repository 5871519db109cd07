package app

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/proxy"
	"github.com/prometheus/client_golang/prometheus"
)

// proxyModule is the recording proxy: with HONE_UPSTREAM_URL set, hone
// serves OpenAI's /v1/chat/completions, /v1/responses and /v1/models by
// forwarding them to that upstream, and records every exchange as a turn.
var proxyModule = Module{
	Name: "proxy",
	Env: [][2]string{
		{"HONE_UPSTREAM_URL", "serve an OpenAI-compatible recording proxy to this base URL (such as https://api.openai.com/v1) at /v1/chat/completions, /v1/responses and /v1/models (serve --upstream)"},
		{"HONE_UPSTREAM_API_KEY", "the upstream's key, replacing the caller's Authorization; required for a keyed upstream when HONE_API_TOKEN is set, since callers then present hone's token or a proxy key; never logged or stored"},
		{"HONE_PROXY_KEYS", "with HONE_API_TOKEN set, further bearer tokens the proxy accepts (comma-separated), so applications need not hold hone's token"},
		{"HONE_PROXY_QUEUE", "how many proxied turns may wait to be recorded (default " + strconv.Itoa(proxy.DefaultQueueSize) + "); more are answered but dropped, and counted in hone_proxy_turns_dropped_total"},
	},
	Open: openProxy,
}

func openProxy(c *Core) (*Parts, error) {
	raw := strings.TrimSpace(c.Getenv("HONE_UPSTREAM_URL"))
	if raw == "" {
		return &Parts{}, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, hone.FieldError("HONE_UPSTREAM_URL", "HONE_UPSTREAM_URL %q is not an http(s) base URL such as https://api.openai.com/v1", raw)
	}
	size := 0
	if s := strings.TrimSpace(c.Getenv("HONE_PROXY_QUEUE")); s != "" {
		if size, err = strconv.Atoi(s); err != nil || size <= 0 {
			return nil, hone.FieldError("HONE_PROXY_QUEUE", "HONE_PROXY_QUEUE %q is not a positive whole number", s)
		}
	}
	var keys []string
	for _, k := range strings.Split(c.Getenv("HONE_PROXY_KEYS"), ",") {
		if k = strings.TrimSpace(k); k != "" {
			keys = append(keys, k)
		}
	}
	p, err := proxy.New(proxy.Options{Upstream: u, UpstreamKey: strings.TrimSpace(c.Getenv("HONE_UPSTREAM_API_KEY")),
		Auth: c.Auth, Hosts: c.Hosts, Keys: keys, Turns: c.Turns.From(capture.SourceProxy), QueueSize: size, Router: c.Chat,
		CorrectionTimeout: c.Config.Learn.CorrectionTimeout, Log: c.Log})
	if err != nil {
		return nil, err
	}
	if err := registerProxyMetrics(c, p.Queue()); err != nil {
		return nil, err
	}
	q := p.Queue()
	parts := &Parts{Jobs: []Job{{Name: "proxy recording", Start: q.Start, Stop: q.Stop}}}
	for _, pattern := range proxy.Patterns {
		parts.Faces = append(parts.Faces, Face{Name: "proxy", Pattern: pattern, Handler: p})
	}
	c.Log.Info("the recording proxy forwards /v1 to the upstream", "upstream", u.Redacted())
	return parts, nil
}

// registerProxyMetrics exports the turns the proxy dropped, by reason, and
// the turns waiting to be recorded.
func registerProxyMetrics(c *Core, q *proxy.Queue) error {
	for _, reason := range proxy.DropReasons {
		if err := c.Telemetry.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name:        "hone_proxy_turns_dropped_total",
			Help:        "Proxied exchanges answered but not recorded, by reason: queue_full (the recording queue was full), store (the database did not take them), invalid.",
			ConstLabels: prometheus.Labels{"reason": reason},
		}, func() float64 { return float64(q.Dropped(reason)) })); err != nil {
			return err
		}
	}
	return c.Telemetry.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hone_proxy_queue_turns",
		Help: "Proxied exchanges waiting to be recorded.",
	}, func() float64 { return float64(q.Len()) }))
}
