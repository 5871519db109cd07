package app_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honehq/hone/internal/app"
	"github.com/honehq/hone/internal/config"
	"github.com/honehq/hone/internal/telegram/telegramtest"
	"github.com/honehq/hone/internal/tuning"
)

// BenchmarkTelegramMessage measures hone's own time per message through the
// Telegram adapter, from the update's arrival at the fake Bot API to the
// reply sent to it (getUpdates, the chat router, the instant fake model,
// the turn recorded, sendMessage), beside the same message through the web
// chat's POST /chat/messages in the same run: p50 of each, what the adapter
// adds at p50, and the ratio.
func BenchmarkTelegramMessage(b *testing.B) {
	tg := telegramtest.New(b, &atomic.Int64{})
	tg.Quiet = true
	sent := make(chan telegramtest.Call, 1024)
	tg.Notify = func(c telegramtest.Call) {
		if c.Method == "sendMessage" {
			sent <- c
		}
	}
	cfg := telegramConfig(b, tg, "")
	a := startWithTB(b, cfg)
	web := webChat(b, a.URL())
	// Warm both paths up.
	tg.Message(1, 7, "hello")
	<-sent
	web("hello")

	var tgTimes, webTimes []time.Duration
	b.ResetTimer()
	for i := range b.N {
		text := fmt.Sprint("My employee did not show up for 3 days, case ", i)
		start := time.Now()
		tg.Message(1, 7, text)
		c := <-sent
		tgTimes = append(tgTimes, time.Since(start))
		if c.Params.Get("text") != text {
			b.Fatalf("telegram answered %q", c.Params.Get("text"))
		}
		start = time.Now()
		web(text)
		webTimes = append(webTimes, time.Since(start))
	}
	b.StopTimer()
	reportP50(b, tgTimes, webTimes)
}

// BenchmarkTelegram200Conversations sends one message in each of 200
// Telegram chats at once, and the same 200 through the web chat from 200
// clients at once: hone's time per message for each (the whole batch over
// 200) and the ratio.
func BenchmarkTelegram200Conversations(b *testing.B) {
	const n = 200
	tg := telegramtest.New(b, &atomic.Int64{})
	tg.Quiet = true
	sent := make(chan telegramtest.Call, 4*n)
	tg.Notify = func(c telegramtest.Call) {
		if c.Method == "sendMessage" {
			sent <- c
		}
	}
	cfg := telegramConfig(b, tg, "")
	a := startWithTB(b, cfg)
	webs := make([]func(string), n)
	for i := range webs {
		webs[i] = webChat(b, a.URL())
	}
	var tgTotal, webTotal time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		for c := range n {
			tg.Message(int64(1000+c), int64(1000+c), "How do I process a resignation?")
		}
		for range n {
			<-sent
		}
		tgTotal += time.Since(start)
		start = time.Now()
		var wg sync.WaitGroup
		for _, web := range webs {
			wg.Go(func() { web("How do I process a resignation?") })
		}
		wg.Wait()
		webTotal += time.Since(start)
	}
	b.StopTimer()
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N*n) }
	b.ReportMetric(per(tgTotal), "telegram-ms/msg")
	b.ReportMetric(per(webTotal), "web-ms/msg")
	b.ReportMetric(per(tgTotal)/per(webTotal), "ratio")
}

// reportP50 reports the p50 of each path, what Telegram adds at p50 and the
// ratio.
func reportP50(b *testing.B, tg, web []time.Duration) { reportP50As(b, "telegram", tg, web) }

// reportP50As reports the p50 of a platform's path and the web chat's,
// what the platform adds at p50 and the ratio.
func reportP50As(b *testing.B, platform string, times, web []time.Duration) {
	p50 := func(ds []time.Duration) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[len(s)/2].Microseconds()) / 1000
	}
	t, w := p50(times), p50(web)
	b.ReportMetric(t, platform+"-p50-ms")
	b.ReportMetric(w, "web-p50-ms")
	b.ReportMetric(t-w, "added-p50-ms")
	b.ReportMetric(t/w, "ratio")
}

// webChat opens the web chat as a browser does and returns a function that
// sends a message through POST /chat/messages.
func webChat(b testing.TB, base string) func(string) {
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	page, err := client.Get(base + "/chat")
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(page.Body)
	page.Body.Close()
	m := csrfMeta.FindStringSubmatch(string(body))
	if m == nil {
		b.Fatal("no CSRF token on /chat")
	}
	return func(text string) {
		req, _ := http.NewRequest("POST", base+"/chat/messages", strings.NewReader(fmt.Sprintf(`{"prompt":"PROMPT.md","text":%q}`, text)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-CSRF-Token", m[1])
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || !strings.Contains(string(out), `"turn_id"`) {
			b.Fatalf("web chat: %d %s", res.StatusCode, out)
		}
	}
}

// startWithTB is startWith for a benchmark: hone on a free loopback port,
// logging errors only.
func startWithTB(b testing.TB, cfg config.Config) *app.App {
	b.Helper()
	cfg.Addr, cfg.MaxBodyBytes, cfg.MessageLimit = "127.0.0.1:0", 1<<20, tuning.DefaultMessageLimit
	a, err := app.Open(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	if err := a.Listen(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { a.Close() })
	return a
}
