// Package telemetry keeps hone's operational metrics and serves them to
// Prometheus at GET /metrics: HTTP requests by face and route, turns and
// scores recorded, LLM calls, database latency and unavailability, the
// SQLite writer's queue, background jobs, and the Go runtime and process.
//
// Each App has a Metrics of its own, with its own registry (tests open many
// in one process). The parts of hone that count declare small interfaces
// that *Metrics satisfies (server.RequestMeter, capture.Counter,
// llm.Meter, storage.Meter), so none of them imports Prometheus; a module
// counts through app.Core.Telemetry, and registers collectors of its own
// with Metrics.Register. Label values are only ever names from hone's code
// (route patterns, purposes, sources); anything else counts as "other".
package telemetry
