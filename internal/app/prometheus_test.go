package app_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/llm/llmtest"
	"github.com/honehq/hone/internal/workshop"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// exchange is an HTTP answer with its body.
type exchange struct {
	status int
	header http.Header
	body   string
}

// send sends a request with the headers h through client (a plain one when
// nil) and reads the answer, following no redirect.
func send(t *testing.T, client *http.Client, method, url, body string, h map[string]string) exchange {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range h {
		req.Header.Set(k, v)
	}
	if client == nil {
		client = &http.Client{}
	}
	c := *client
	c.Timeout = 20 * time.Second
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return exchange{res.StatusCode, res.Header, string(b)}
}

// scrape reads base's metrics as Prometheus does, and returns each series
// (name{label="value",…}, labels sorted; a histogram as its _count and _sum)
// with its value, and the exposition as sent.
func scrape(t *testing.T, base, token string) (map[string]float64, string) {
	t.Helper()
	h := map[string]string{"Accept": "text/plain;version=0.0.4;q=0.3,*/*;q=0.2"}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	got := send(t, nil, "GET", base+"/metrics", "", h)
	if got.status != http.StatusOK || !strings.HasPrefix(got.header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("GET /metrics = %d %q: %.300s", got.status, got.header.Get("Content-Type"), got.body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(got.body))
	if err != nil {
		t.Fatalf("the exposition does not parse: %v", err)
	}
	out := map[string]float64{}
	for name, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			sort.Strings(labels)
			key := "{" + strings.Join(labels, ",") + "}"
			switch {
			case m.Counter != nil:
				out[name+key] = m.Counter.GetValue()
			case m.Gauge != nil:
				out[name+key] = m.Gauge.GetValue()
			case m.Untyped != nil:
				out[name+key] = m.Untyped.GetValue()
			case m.Histogram != nil:
				out[name+"_count"+key] = float64(m.Histogram.GetSampleCount())
				out[name+"_sum"+key] = m.Histogram.GetSampleSum()
			case m.Summary != nil:
				out[name+"_count"+key] = float64(m.Summary.GetSampleCount())
			}
		}
	}
	return out, got.body
}

var csrfMeta = regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)">`)

// TestPrometheusMetrics: after turns, a chat command, a chat turn through
// the LLM, a workshop analysis and (on SQLite) a full database answered
// 503, the scrape through the real server shows each series that must have
// moved with its value, and no label holds a path's values or what users
// wrote.
func TestPrometheusMetrics(t *testing.T) {
	eachDatabaseConfig(t, func(t *testing.T, cfg config.Config) {
		fake := llmtest.New(t)
		cfg.LLM = fake.Config()
		prompt := filepath.Join(t.TempDir(), "PROMPT.md")
		if err := os.WriteFile(prompt, []byte("You are ERA, an HR assistant."), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg.Prompts = []string{prompt}
		a := startWith(t, cfg)
		base, api := a.URL(), a.URL()+"/api/v1"
		sqlite := cfg.DatabaseURL == ""

		// Turns: one sent twice (the second a replay), and a batch of
		// three of which one is refused and one says it came through a
		// proxy.
		turn := `{"id":"turn-private-1","conversation_id":"conv-private","tester_id":"meg","user_message":"my private question","response":"an answer"}`
		for _, want := range []int{http.StatusCreated, http.StatusOK} {
			if got := send(t, nil, "POST", api+"/turns", turn, nil); got.status != want {
				t.Fatalf("POST /turns = %d %s, want %d", got.status, got.body, want)
			}
		}
		batch := `[{"conversation_id":"conv-private","tester_id":"meg","user_message":"q2","response":"a2"},
			{"conversation_id":"conv-private","tester_id":"meg","user_message":"q3"},
			{"conversation_id":"conv-private","tester_id":"meg","user_message":"q4","response":"a4","source":"proxy"}]`
		if got := send(t, nil, "POST", api+"/turns/batch", batch, nil); got.status != http.StatusMultiStatus {
			t.Fatalf("POST /turns/batch = %d %s", got.status, got.body)
		}
		// A chat command.
		if got := send(t, nil, "POST", api+"/messages", `{"conversation_id":"conv-private","tester_id":"meg","text":"!improve tone: my secret note"}`, nil); got.status != http.StatusOK ||
			!strings.Contains(got.body, `"ack":true`) {
			t.Fatalf("!improve = %d %s", got.status, got.body)
		}
		// A chat turn through the LLM, in the web chat.
		jar, _ := cookiejar.New(nil)
		browser := &http.Client{Jar: jar}
		page := send(t, browser, "GET", base+"/chat", "", nil)
		m := csrfMeta.FindStringSubmatch(page.body)
		if page.status != http.StatusOK || m == nil {
			t.Fatalf("GET /chat = %d without a CSRF token", page.status)
		}
		fake.Push(llmtest.Reply{Content: "Call HR first.", Usage: &llmtest.Usage{PromptTokens: 40, CompletionTokens: 4, TotalTokens: 44}})
		if got := send(t, browser, "POST", base+"/chat/messages", `{"prompt":"PROMPT.md","text":"my private chat message"}`,
			map[string]string{"X-CSRF-Token": m[1]}); got.status != http.StatusOK {
			t.Fatalf("POST /chat/messages = %d %s", got.status, got.body)
		}
		// A workshop analysis, a background job with an LLM call.
		analysisID := runAnalysis(t, api, fake)
		// What no route serves, with text in its path.
		if got := send(t, nil, "GET", api+"/no-such-private-endpoint", "", nil); got.status != http.StatusNotFound {
			t.Fatalf("GET an unknown endpoint = %d", got.status)
		}
		// A database that cannot grow: the write is answered 503.
		if sqlite {
			if err := a.DB.Exec(t.Context(), "PRAGMA max_page_count = 1"); err != nil {
				t.Fatal(err)
			}
			big := fmt.Sprintf(`{"conversation_id":"conv-private","tester_id":"meg","user_message":"big","response":%q}`, strings.Repeat("a long answer ", 5000))
			if got := send(t, nil, "POST", api+"/turns", big, nil); got.status != http.StatusServiceUnavailable {
				t.Fatalf("POST /turns on a full database = %d %s", got.status, got.body)
			}
			if err := a.DB.Exec(t.Context(), "PRAGMA max_page_count = 1073741823"); err != nil {
				t.Fatal(err)
			}
		}

		series, body := scrape(t, base, "")
		want := map[string]float64{
			`hone_turns_recorded_total{source="api"}`:                                                                        2,
			`hone_turns_recorded_total{source="proxy"}`:                                                                      1,
			`hone_turns_recorded_total{source="chat"}`:                                                                       1,
			`hone_http_requests_total{code="201",face="api",method="POST",route="/api/v1/turns"}`:                            1,
			`hone_http_requests_total{code="200",face="api",method="POST",route="/api/v1/turns"}`:                            1,
			`hone_http_requests_total{code="207",face="api",method="POST",route="/api/v1/turns/batch"}`:                      1,
			`hone_http_requests_total{code="200",face="api",method="POST",route="/api/v1/messages"}`:                         1,
			`hone_http_requests_total{code="200",face="web",method="GET",route="/chat"}`:                                     1,
			`hone_http_requests_total{code="200",face="web",method="POST",route="/chat/messages"}`:                           1,
			`hone_http_requests_total{code="202",face="api",method="POST",route="/api/v1/workshops/{id}/analyze-discovery"}`: 1,
			`hone_http_requests_total{code="404",face="api",method="GET",route="/api/v1/"}`:                                  1,
			`hone_http_request_duration_seconds_count{face="api",method="POST",route="/api/v1/turns/batch"}`:                 1,
			`hone_llm_calls_total{outcome="ok",purpose="chat"}`:                                                              1,
			`hone_llm_calls_total{outcome="ok",purpose="analysis"}`:                                                          1,
			`hone_llm_call_duration_seconds_count{purpose="chat"}`:                                                           1,
			`hone_llm_call_duration_seconds_count{purpose="analysis"}`:                                                       1,
			`hone_llm_tokens_total{kind="prompt",purpose="chat"}`:                                                            40,
			`hone_llm_tokens_total{kind="completion",purpose="chat"}`:                                                        4,
			`hone_llm_tokens_total{kind="prompt",purpose="analysis"}`:                                                        300,
			`hone_llm_tokens_total{kind="completion",purpose="analysis"}`:                                                    60,
			`hone_llm_calls_total{outcome="ok",purpose="follow-up"}`:                                                         0,
			`hone_jobs{kind="workshop_analysis",state="done"}`:                                                               1,
			`hone_jobs{kind="workshop_analysis",state="queued"}`:                                                             0,
			`hone_jobs{kind="workshop_analysis",state="running"}`:                                                            0,
			`hone_jobs{kind="workshop_analysis",state="failed"}`:                                                             0,
			`hone_jobs{kind="learning_synthesis",state="queued"}`:                                                            0,
		}
		if sqlite {
			want[`hone_http_requests_total{code="503",face="api",method="POST",route="/api/v1/turns"}`] = 1
			want[`hone_http_request_duration_seconds_count{face="api",method="POST",route="/api/v1/turns"}`] = 3
			want[`hone_db_unavailable_total{op="write"}`] = 1
			want[`hone_sqlite_writer_queue_depth{}`] = 0
		} else {
			want[`hone_http_request_duration_seconds_count{face="api",method="POST",route="/api/v1/turns"}`] = 2
			want[`hone_db_unavailable_total{op="write"}`] = 0
		}
		for k, v := range want {
			if got, ok := series[k]; !ok || got != v {
				t.Errorf("%s = %v (present: %v), want %v", k, got, ok, v)
			}
		}
		for _, k := range []string{`hone_db_call_duration_seconds_count{op="read"}`, `hone_db_call_duration_seconds_count{op="write"}`,
			`go_goroutines{}`, `process_cpu_seconds_total{}`, `hone_db_unavailable_total{op="read"}`} {
			if _, ok := series[k]; !ok {
				t.Errorf("no series %s", k)
			}
		}
		if series[`hone_db_call_duration_seconds_count{op="write"}`] < 5 || series[`hone_db_call_duration_seconds_count{op="read"}`] < 5 {
			t.Errorf("database calls counted: %v reads, %v writes", series[`hone_db_call_duration_seconds_count{op="read"}`],
				series[`hone_db_call_duration_seconds_count{op="write"}`])
		}
		if _, ok := series[`hone_sqlite_writer_queue_depth{}`]; ok != sqlite {
			t.Errorf("the SQLite writer's queue reported: %v, on SQLite: %v", ok, sqlite)
		}
		for _, secret := range []string{"private", "secret", "conv-", "meg", analysisID, "no-such"} {
			if strings.Contains(body, secret) {
				i := strings.Index(body, secret)
				t.Errorf("the metrics hold %q: …%s…", secret, body[max(0, i-120):min(len(body), i+40)])
			}
		}
	})
}

// runAnalysis runs a workshop's analysis with one LLM call to fake, and
// returns its id once it is done.
func runAnalysis(t *testing.T, api string, fake *llmtest.Server) string {
	t.Helper()
	post := func(path, body string, want int) map[string]any {
		t.Helper()
		got := send(t, nil, "POST", api+path, body, nil)
		if got.status != want {
			t.Fatalf("POST %s = %d %s", path, got.status, got.body)
		}
		var out map[string]any
		_ = json.Unmarshal([]byte(got.body), &out)
		out["Location"] = got.header.Get("Location")
		return out
	}
	created := post("/workshops", `{"name":"Private workshop","facilitator":{"name":"Fay","email":"fay@example.com"}}`, http.StatusCreated)
	id := created["id"].(string)
	member := post("/workshops/"+id+"/members", `{"name":"Pat","email":"pat@example.com"}`, http.StatusCreated)
	post("/workshops/"+id+"/traces", `[{"id":"t1","input":"private input","output":"private output"}]`, http.StatusCreated)
	post("/workshops/"+id+"/begin-discovery", `{"trace_limit":1}`, http.StatusOK)
	post("/workshops/"+id+"/discovery-feedback?user_id="+member["id"].(string), `{"trace_id":"t1","feedback_label":"good","comment":"private comment"}`, http.StatusOK)
	reply := llmtest.JSON(workshop.DistillationOutput{Findings: []workshop.Finding{{Text: "Cite the policy.", EvidenceTraceIDs: []string{"t1"}, Priority: "high"}},
		HighPriorityDisagreements: []workshop.DisagreementAnalysis{}, MediumPriorityDisagreements: []workshop.DisagreementAnalysis{},
		LowerPriorityDisagreements: []workshop.DisagreementAnalysis{}, Summary: "Fine."})
	reply.Usage = &llmtest.Usage{PromptTokens: 300, CompletionTokens: 60, TotalTokens: 360}
	fake.Push(reply)
	started := post("/workshops/"+id+"/analyze-discovery", "", http.StatusAccepted)
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := send(t, nil, "GET", strings.TrimSuffix(api, "/api/v1")+started["Location"].(string), "", nil)
		var an workshop.Analysis
		if err := json.Unmarshal([]byte(got.body), &an); err != nil {
			t.Fatalf("GET the analysis: %d %s", got.status, got.body)
		}
		if an.Status == workshop.StatusDone {
			if fake.Pending() != 0 {
				t.Fatalf("the analysis left %d LLM replies unused", fake.Pending())
			}
			return an.ID
		}
		if an.Status == workshop.StatusFailed || time.Now().After(deadline) {
			t.Fatalf("the analysis is %s: %s", an.Status, an.Error)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMetricsNeedTheToken: with HONE_API_TOKEN set, a scrape needs it as a
// Bearer token (401 with WWW-Authenticate otherwise), and an address that
// guesses wrong too often must wait like on the API; OpenMetrics is
// negotiated; a browser is sent to the quality page (which asks it to sign
// in), never shown the metrics.
func TestMetricsNeedTheToken(t *testing.T) {
	const token = "a-long-enough-token-0123456789"
	a := startWith(t, config.Config{APIToken: token})
	url := a.URL() + "/metrics"
	for _, h := range []map[string]string{nil, {"Authorization": "Bearer wrong-token"}, {"Authorization": "Basic " + token}, {"Authorization": token}} {
		got := send(t, nil, "GET", url, "", h)
		if got.status != http.StatusUnauthorized || got.header.Get("WWW-Authenticate") != `Bearer realm="hone"` || strings.Contains(got.body, "hone_") {
			t.Errorf("GET /metrics with %v = %d %q %.200s, want 401 with WWW-Authenticate", h, got.status, got.header.Get("WWW-Authenticate"), got.body)
		}
	}
	if series, _ := scrape(t, a.URL(), token); series[`hone_http_requests_total{code="401",face="metrics",method="GET",route="/metrics"}`] != 4 {
		t.Errorf("the refused scrapes are not counted: %v", series[`hone_http_requests_total{code="401",face="metrics",method="GET",route="/metrics"}`])
	}
	om := send(t, nil, "GET", url, "", map[string]string{"Authorization": "bearer " + token,
		"Accept": "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;q=0.3,*/*;q=0.2"})
	if om.status != http.StatusOK || !strings.HasPrefix(om.header.Get("Content-Type"), "application/openmetrics-text") || !strings.HasSuffix(om.body, "# EOF\n") {
		t.Errorf("an OpenMetrics scrape = %d %q, ends %q", om.status, om.header.Get("Content-Type"), om.body[max(0, len(om.body)-20):])
	}
	browser := send(t, nil, "GET", url+"?version=v1", "", map[string]string{"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
	if browser.status != http.StatusMovedPermanently || browser.header.Get("Location") != "/quality?version=v1" || strings.Contains(browser.body, "hone_") {
		t.Errorf("a browser not signed in = %d to %q, want 301 to /quality?version=v1 (which asks to sign in)", browser.status, browser.header.Get("Location"))
	}
	if page := send(t, nil, "GET", a.URL()+"/quality?version=v1", "", map[string]string{"Accept": "text/html"}); page.status != http.StatusSeeOther ||
		!strings.HasPrefix(page.header.Get("Location"), "/signin?") {
		t.Errorf("the quality page without a sign-in = %d to %q", page.status, page.header.Get("Location"))
	}
	// Guessing: after 20 wrong tokens from one address, even the right one waits.
	for range 20 {
		send(t, nil, "GET", url, "", map[string]string{"Authorization": "Bearer guess"})
	}
	got := send(t, nil, "GET", url, "", map[string]string{"Authorization": "Bearer " + token})
	if got.status != http.StatusTooManyRequests || got.header.Get("Retry-After") == "" {
		t.Errorf("after 20 wrong tokens: %d Retry-After %q, want 429", got.status, got.header.Get("Retry-After"))
	}
}

// TestMetricsWithoutTheToken: without HONE_API_TOKEN, a scrape needs no
// token but a Host hone answers to; a browser asking for HTML is sent to
// the quality page, query and all; only GET and HEAD are served.
func TestMetricsWithoutTheToken(t *testing.T) {
	a := startWith(t, config.Config{})
	url := a.URL() + "/metrics"
	if got := send(t, nil, "GET", url, "", nil); got.status != http.StatusOK || !strings.Contains(got.body, "# TYPE hone_turns_recorded_total counter") {
		t.Errorf("GET /metrics = %d %.200s", got.status, got.body)
	}
	if got := send(t, nil, "GET", url, "", map[string]string{"Accept": "*/*", "Authorization": "Bearer anything"}); got.status != http.StatusOK {
		t.Errorf("GET /metrics as curl = %d", got.status)
	}
	status, body := raw(t, "GET", url, "", map[string]string{"Host": "evil.example"})
	if status != http.StatusForbidden || strings.Contains(body, "hone_") {
		t.Errorf("GET /metrics for a foreign host = %d %.200s", status, body)
	}
	browser := send(t, nil, "GET", url+"?version=v1&b=2", "", map[string]string{"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"})
	if browser.status != http.StatusMovedPermanently || browser.header.Get("Location") != "/quality?version=v1&b=2" {
		t.Errorf("a browser at /metrics = %d to %q, want 301 to /quality?version=v1&b=2", browser.status, browser.header.Get("Location"))
	}
	if got := send(t, nil, "POST", url, `{}`, nil); got.status != http.StatusMethodNotAllowed || got.header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /metrics = %d Allow %q", got.status, got.header.Get("Allow"))
	}
	series, _ := scrape(t, a.URL(), "")
	for k, v := range map[string]float64{
		`hone_http_requests_total{code="403",face="metrics",method="GET",route="/metrics"}`: 1,
		`hone_http_requests_total{code="301",face="metrics",method="GET",route="/metrics"}`: 1,
		`hone_http_requests_total{code="405",face="metrics",method="POST",route="/"}`:       1,
		`hone_http_requests_total{code="200",face="metrics",method="GET",route="/metrics"}`: 2,
	} {
		if series[k] != v {
			t.Errorf("%s = %v, want %v", k, series[k], v)
		}
	}
}

// TestMetricsPerApp: two hones in one process count apart.
func TestMetricsPerApp(t *testing.T) {
	a, b := startWith(t, config.Config{}), startWith(t, config.Config{})
	if got := send(t, nil, "POST", a.URL()+"/api/v1/turns", `{"conversation_id":"c","tester_id":"t","user_message":"q","response":"a"}`, nil); got.status != http.StatusCreated {
		t.Fatalf("POST /turns = %d", got.status)
	}
	sa, _ := scrape(t, a.URL(), "")
	sb, _ := scrape(t, b.URL(), "")
	if got := []float64{sa[`hone_turns_recorded_total{source="api"}`], sb[`hone_turns_recorded_total{source="api"}`]}; !slices.Equal(got, []float64{1, 0}) {
		t.Errorf("turns counted by the two hones: %v, want [1 0]", got)
	}
}
