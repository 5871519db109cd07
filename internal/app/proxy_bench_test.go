package app_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/llm/llmtest"
)

// proxyBenchClients is how many clients call at once.
const proxyBenchClients = 64

// proxyBench is hone serving the recording proxy to an in-process fake
// upstream, with a client for both.
type proxyBench struct {
	// clients is how many clients call at once (proxyBenchClients).
	clients         int
	fake            *llmtest.Server
	direct, proxied string
	client          *http.Client
}

// newProxyBench starts hone with the fake upstream in this process, for a
// benchmark that scripts the upstream.
func newProxyBench(b *testing.B) *proxyBench {
	fake := llmtest.New(b, llmtest.WithoutRequestLog())
	pb := startProxyBench(b, fake.URL)
	pb.fake = fake
	return pb
}

// newRemoteProxyBench starts hone with the fake upstream in a process of
// its own, as a real upstream is: its heap, collections and scheduling are
// not hone's.
func newRemoteProxyBench(b *testing.B) *proxyBench {
	return startProxyBench(b, startUpstreamChild(b))
}

func startProxyBench(b *testing.B, upstream string) *proxyBench {
	b.Setenv("HONE_UPSTREAM_URL", upstream)
	a := startWithTB(b, config.Config{DataDir: b.TempDir()})
	return &proxyBench{clients: proxyBenchClients, direct: upstream + "/chat/completions", proxied: a.URL() + "/v1/chat/completions",
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4 * proxyBenchClients}}}
}

// childUpstreamEnv makes the test binary serve the fake upstream, writing
// its URL to the file the variable names, until it is killed.
const childUpstreamEnv = "HONE_TEST_CHILD_UPSTREAM"

func serveUpstreamChild(file string) {
	publishURL(file, llmtest.Start(llmtest.WithoutRequestLog()).URL)
	select {}
}

// startUpstreamChild starts the fake upstream in a process of its own and
// returns its base URL.
func startUpstreamChild(b *testing.B) string {
	file := filepath.Join(b.TempDir(), "upstream")
	_, url := spawn(b, file, childUpstreamEnv+"="+file)
	return url
}

func benchChat(i int, stream bool) string {
	return fmt.Sprintf(`{"model":"fake-model","stream":%t,"messages":[{"role":"system","content":"You are ERA, an HR assistant."},`+
		`{"role":"user","content":"My employee did not show up for 3 days, case %d. What do I do?"}]}`, stream, i)
}

// run sends n requests to url from proxyBenchClients clients at once,
// rate requests a second together (0: each client as fast as it can), and
// returns each one's time: to the whole answer, or, for a stream, to its
// first byte.
func (pb *proxyBench) run(b *testing.B, url string, n int, stream bool, rate int) []time.Duration {
	out := make([]time.Duration, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	began := time.Now()
	for range pb.clients {
		wg.Go(func() {
			one := make([]byte, 1)
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if rate > 0 {
					time.Sleep(time.Until(began.Add(time.Duration(i) * time.Second / time.Duration(rate))))
				}
				start := time.Now()
				res, err := pb.client.Post(url, "application/json", strings.NewReader(benchChat(i, stream)))
				if err != nil {
					b.Error(err)
					return
				}
				if stream {
					if _, err := io.ReadFull(res.Body, one); err != nil {
						b.Error(err)
					}
					out[i] = time.Since(start)
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if !stream {
					out[i] = time.Since(start)
				}
				if res.StatusCode != http.StatusOK || !strings.Contains(string(body), fmt.Sprintf("case %d.", i)) && !stream {
					b.Errorf("%s: %d %s", url, res.StatusCode, body)
				}
			}
		})
	}
	wg.Wait()
	return out
}

// compare runs n requests each way in rounds that alternate, so that both
// see the same machine, and returns the times of each and the process's
// CPU time per request each way (the recording of the proxied turns
// included: each round ends once the proxy's queue had time to write).
func (pb *proxyBench) compare(b *testing.B, n int, stream bool, rate int) (direct, proxied []time.Duration, directCPU, proxiedCPU time.Duration) {
	const rounds = 10
	side := func(url string, times *[]time.Duration, cpu *time.Duration) {
		start := cpuTime()
		*times = append(*times, pb.run(b, url, n/rounds, stream, rate)...)
		time.Sleep(100 * time.Millisecond)
		*cpu += cpuTime() - start
	}
	for range rounds {
		side(pb.direct, &direct, &directCPU)
		side(pb.proxied, &proxied, &proxiedCPU)
	}
	return direct, proxied, directCPU / time.Duration(n), proxiedCPU / time.Duration(n)
}

func percentile(ds []time.Duration, p float64) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[int(float64(len(s)-1)*p)].Nanoseconds()) / 1e3
}

// BenchmarkProxyOverhead: 10,000 chat completions from 64 clients at once
// through the recording proxy and straight to the fake upstream, in
// alternating rounds of the same run: the median and p99 of each in µs and
// what the proxy adds (the goals: under 300 µs at the median, under
// 2 ms at p99); then 2,000 streamed completions each way, what the proxy
// adds to the time to their first byte (goal: under 1 ms). The fake
// upstream runs in a process of its own, as a real one does, so that its
// heap and collections are not hone's. "rate=500" and "rate=1000" pace
// the 64 clients to that many requests a second together, as a gateway's
// overhead is quoted at a load it sustains; "saturated" lets every client
// send as fast as it can, so that on a small machine the figures are
// mostly queueing behind the CPU the proxy and its recording take;
// "one-client" sends 2,000 (and 400 streams) from one client, one at a
// time, for the proxy's own latency without queueing. Beside the times,
// the CPU time hone's process adds per request and per stream (its HTTP
// hop, its parsing and the turn's recording), which a machine shared with
// other work does not blur.
func BenchmarkProxyOverhead(b *testing.B) {
	pb := newRemoteProxyBench(b)
	pb.run(b, pb.direct, 500, false, 0)
	pb.run(b, pb.proxied, 500, false, 0)
	for _, c := range []struct {
		name          string
		rate, clients int
		n             int
	}{{"rate=500", 500, proxyBenchClients, 10000}, {"rate=1000", 1000, proxyBenchClients, 10000}, {"saturated", 0, proxyBenchClients, 10000}, {"one-client", 0, 1, 2000}} {
		b.Run(c.name, func(b *testing.B) {
			pb.clients = c.clients
			for range b.N {
				direct, proxied, dCPU, pCPU := pb.compare(b, c.n, false, c.rate)
				b.ReportMetric(float64(pCPU-dCPU)/1e3, "added-cpu-µs/req")
				d50, p50 := percentile(direct, 0.5), percentile(proxied, 0.5)
				d99, p99 := percentile(direct, 0.99), percentile(proxied, 0.99)
				b.ReportMetric(d50, "direct-p50-µs")
				b.ReportMetric(p50, "proxy-p50-µs")
				b.ReportMetric(p50-d50, "added-p50-µs")
				b.ReportMetric(d99, "direct-p99-µs")
				b.ReportMetric(p99, "proxy-p99-µs")
				b.ReportMetric(p99-d99, "added-p99-µs")
				direct, proxied, dCPU, pCPU = pb.compare(b, c.n/5, true, c.rate)
				b.ReportMetric(float64(pCPU-dCPU)/1e3, "added-cpu-µs/stream")
				b.ReportMetric(percentile(proxied, 0.5)-percentile(direct, 0.5), "added-ttfb-p50-µs")
				b.ReportMetric(percentile(proxied, 0.99)-percentile(direct, 0.99), "added-ttfb-p99-µs")
			}
		})
	}
}

// BenchmarkProxyStreamMemory holds 500 streamed answers open at once (the
// fake upstream waits between its chunks) straight to the upstream and
// then through the proxy, five times each way, and reports the median
// memory (heap and goroutine stacks in use) per stream in flight each way
// and what the proxy adds.
func BenchmarkProxyStreamMemory(b *testing.B) {
	const streams = 500
	pb := newProxyBench(b)
	pb.fake.SetHandler(func(req llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Reply{Chunks: []string{"Call ", "them ", "first."}, ChunkDelay: time.Hour}
	})
	held := func(url string) uint64 {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		before := inUse()
		var wg sync.WaitGroup
		var bodies sync.Map
		for i := range streams {
			wg.Go(func() {
				req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(benchChat(i, true)))
				req.Header.Set("Content-Type", "application/json")
				res, err := pb.client.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				buf := make([]byte, 1)
				if _, err := io.ReadFull(res.Body, buf); err != nil {
					b.Error(err)
				}
				bodies.Store(i, res.Body)
			})
		}
		wg.Wait()
		after := inUse()
		cancel()
		bodies.Range(func(_, v any) bool { v.(io.Closer).Close(); return true })
		if after < before {
			return 0
		}
		return (after - before) / streams
	}
	b.ResetTimer()
	median := func(xs []uint64) float64 {
		slices.Sort(xs)
		return float64(xs[len(xs)/2]) / 1024
	}
	for range b.N {
		var direct, proxied []uint64
		for range 5 {
			direct = append(direct, held(pb.direct))
			proxied = append(proxied, held(pb.proxied))
		}
		d, p := median(direct), median(proxied)
		b.ReportMetric(d, "direct-KiB/stream")
		b.ReportMetric(p, "proxy-KiB/stream")
		b.ReportMetric(p-d, "added-KiB/stream")
	}
}

// inUse is the memory in use after a collection: heap and goroutine stacks.
func inUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}
