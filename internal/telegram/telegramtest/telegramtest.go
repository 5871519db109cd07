// Package telegramtest is an in-process fake of the Telegram Bot API for
// tests across hone.
package telegramtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Server is an in-process Telegram Bot API server following the
// documented shapes: every method answers {"ok": true, "result": …} or
// {"ok": false, "error_code", "description", "parameters"}; getUpdates long
// polls from its offset; a method can be made to fail with 429 and
// retry_after or with a 5xx.
type Server struct {
	t     testing.TB
	srv   *httptest.Server
	token string
	seq   *atomic.Int64

	mu      sync.Mutex
	updates []map[string]any
	nextID  int
	msgID   int
	calls   []Call
	fail    map[string][]Failure
	wake    chan struct{}
	// Notify, when set before the fake is used, is told of every call it
	// records.
	Notify func(Call)
	// Quiet answers getUpdates without recording it (benchmarks).
	Quiet bool
}

// Call is one request the fake received.
type Call struct {
	Seq      int64
	Method   string
	Params   url.Values
	FileName string
	FileData []byte
}

// Failure is how the next call of a method fails.
type Failure struct {
	Status     int
	RetryAfter int
}

// Reactions are some of the emoji Telegram takes as a reaction
// (setMessageReaction's ReactionTypeEmoji).
const Reactions = "👍👎❤🔥🥰👏😁🤔🤯😱🤬😢🎉🤩🙏👌🕊🤡🥱😍🐳💯🤣⚡🏆💔🤨😐🍾💋😈😴😭🤓👻👀🙈😇😨🤝✍🤗🫡💅🤪🗿🆒💘🙉🦄😘🙊😎👾🤷😡"

// Token is the fake bot's token.
const Token = "123456789:AAfake-token-do-not-log"

// New starts a fake Bot API for the bot Token; calls are numbered from seq,
// which the test may share to order them against its own events.
func New(t testing.TB, seq *atomic.Int64) *Server {
	f := &Server{t: t, token: Token, seq: seq, nextID: 1000, msgID: 1, fail: map[string][]Failure{}, wake: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// URL is the base URL, for HONE_TELEGRAM_API_URL.
func (f *Server) URL() string { return f.srv.URL }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (f *Server) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot"+f.token+"/")
	if !ok {
		writeJSON(w, 401, map[string]any{"ok": false, "error_code": 401, "description": "Unauthorized"})
		return
	}
	method := rest
	c := Call{Method: method}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		if err := r.ParseMultipartForm(10 << 20); err != nil {
			writeJSON(w, 400, map[string]any{"ok": false, "error_code": 400, "description": "Bad Request: " + err.Error()})
			return
		}
		c.Params = url.Values(r.MultipartForm.Value)
		for _, fhs := range r.MultipartForm.File {
			file, _ := fhs[0].Open()
			c.FileName = fhs[0].Filename
			c.FileData, _ = io.ReadAll(file)
			file.Close()
		}
	} else {
		r.ParseForm()
		c.Params = r.PostForm
	}
	f.mu.Lock()
	if q := f.fail[method]; len(q) > 0 {
		fl := q[0]
		f.fail[method] = q[1:]
		f.mu.Unlock()
		body := map[string]any{"ok": false, "error_code": fl.Status, "description": http.StatusText(fl.Status)}
		if fl.RetryAfter > 0 {
			body["description"] = fmt.Sprintf("Too Many Requests: retry after %d", fl.RetryAfter)
			body["parameters"] = map[string]any{"retry_after": fl.RetryAfter}
		}
		writeJSON(w, fl.Status, body)
		return
	}
	f.mu.Unlock()
	if method == "getUpdates" {
		f.getUpdates(w, r, c)
		return
	}
	f.record(c)
	switch method {
	case "getMe":
		writeJSON(w, 200, map[string]any{"ok": true, "result": map[string]any{"id": 123456789, "is_bot": true, "first_name": "hone", "username": "hone_bot"}})
	case "sendMessage", "sendDocument":
		chat, err := strconv.ParseInt(c.Params.Get("chat_id"), 10, 64)
		text := c.Params.Get("text")
		switch {
		case err != nil:
			writeJSON(w, 400, map[string]any{"ok": false, "error_code": 400, "description": "Bad Request: chat not found"})
			return
		case method == "sendMessage" && (text == "" || len([]rune(text)) > 4096):
			writeJSON(w, 400, map[string]any{"ok": false, "error_code": 400, "description": "Bad Request: message text is empty or too long"})
			return
		case method == "sendDocument" && c.FileName == "":
			writeJSON(w, 400, map[string]any{"ok": false, "error_code": 400, "description": "Bad Request: there is no document in the request"})
			return
		}
		if m := c.Params.Get("reply_markup"); m != "" && !json.Valid([]byte(m)) {
			writeJSON(w, 400, map[string]any{"ok": false, "error_code": 400, "description": "Bad Request: can't parse reply keyboard markup JSON object"})
			return
		}
		f.mu.Lock()
		f.msgID++
		id := f.msgID
		f.mu.Unlock()
		writeJSON(w, 200, map[string]any{"ok": true, "result": map[string]any{"message_id": id, "date": time.Now().Unix(),
			"chat": map[string]any{"id": chat, "type": "private"}, "text": text}})
	case "editMessageReplyMarkup":
		if c.Params.Get("message_id") == "" || !json.Valid([]byte(c.Params.Get("reply_markup"))) {
			writeJSON(w, 400, map[string]any{"ok": false, "error_code": 400, "description": "Bad Request: message to edit not found"})
			return
		}
		writeJSON(w, 200, map[string]any{"ok": true, "result": true})
	case "setMessageReaction":
		var reaction []struct {
			Type  string `json:"type"`
			Emoji string `json:"emoji"`
		}
		if c.Params.Get("chat_id") == "" || c.Params.Get("message_id") == "" {
			writeJSON(w, 400, map[string]any{"ok": false, "error_code": 400, "description": "Bad Request: message to react not found"})
			return
		}
		if err := json.Unmarshal([]byte(c.Params.Get("reaction")), &reaction); err != nil || len(reaction) > 1 ||
			(len(reaction) == 1 && (reaction[0].Type != "emoji" || !strings.Contains(Reactions, reaction[0].Emoji))) {
			writeJSON(w, 400, map[string]any{"ok": false, "error_code": 400, "description": "Bad Request: REACTION_INVALID"})
			return
		}
		writeJSON(w, 200, map[string]any{"ok": true, "result": true})
	case "answerCallbackQuery":
		if c.Params.Get("callback_query_id") == "" {
			writeJSON(w, 400, map[string]any{"ok": false, "error_code": 400, "description": "Bad Request: query is too old"})
			return
		}
		writeJSON(w, 200, map[string]any{"ok": true, "result": true})
	case "setMyCommands", "setWebhook", "deleteWebhook":
		writeJSON(w, 200, map[string]any{"ok": true, "result": true})
	default:
		writeJSON(w, 404, map[string]any{"ok": false, "error_code": 404, "description": "Not Found"})
	}
}

func (f *Server) record(c Call) {
	c.Seq = f.seq.Add(1)
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
	if f.Notify != nil {
		f.Notify(c)
	}
}

// getUpdates answers the updates from offset on, waiting up to timeout
// seconds for one. Unlike Telegram it forgets nothing, so that a client
// asking from an old offset gets old updates again.
func (f *Server) getUpdates(w http.ResponseWriter, r *http.Request, c Call) {
	offset, _ := strconv.Atoi(c.Params.Get("offset"))
	timeout, _ := strconv.Atoi(c.Params.Get("timeout"))
	deadline := time.After(time.Duration(timeout) * time.Second)
	for {
		f.mu.Lock()
		var out []map[string]any
		for _, u := range f.updates {
			if u["update_id"].(int) >= offset {
				out = append(out, u)
			}
		}
		wake, quiet := f.wake, f.Quiet
		f.mu.Unlock()
		if len(out) > 0 || timeout == 0 {
			if !quiet {
				f.record(c)
			}
			writeJSON(w, 200, map[string]any{"ok": true, "result": out})
			return
		}
		select {
		case <-wake:
		case <-deadline:
			timeout = 0
		case <-r.Context().Done():
			return
		}
	}
}

// Push adds an update and returns its id.
func (f *Server) Push(u map[string]any) int {
	f.mu.Lock()
	f.nextID++
	u["update_id"] = f.nextID
	f.updates = append(f.updates, u)
	close(f.wake)
	f.wake = make(chan struct{})
	f.mu.Unlock()
	return f.nextID
}

// User is a Telegram user of id.
func User(id int64) map[string]any {
	return map[string]any{"id": id, "is_bot": false, "first_name": "Meg", "last_name": "Ryan", "username": "meg_hr"}
}

// Message pushes a text message of user from in chat.
func (f *Server) Message(chat, from int64, text string) int {
	f.mu.Lock()
	f.msgID++
	id := f.msgID
	f.mu.Unlock()
	return f.Push(map[string]any{"message": map[string]any{"message_id": id, "date": time.Now().Unix(), "text": text,
		"from": User(from), "chat": map[string]any{"id": chat, "type": "private"}}})
}

// Press pushes a press of an inline button under message msg.
func (f *Server) Press(chat, from int64, msg int, data string) int {
	return f.Push(map[string]any{"callback_query": map[string]any{"id": fmt.Sprint("cq", f.nextID), "from": User(from),
		"chat_instance": "ci", "data": data,
		"message": map[string]any{"message_id": msg, "date": time.Now().Unix(), "chat": map[string]any{"id": chat, "type": "private"}}}})
}

// FailNext makes the next calls of method fail in turn.
func (f *Server) FailNext(method string, fs ...Failure) {
	f.mu.Lock()
	f.fail[method] = append(f.fail[method], fs...)
	f.mu.Unlock()
}

// Of returns the calls of method so far.
func (f *Server) Of(method string) []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Call
	for _, c := range f.calls {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// Await waits until method was called n times and returns those calls.
func (f *Server) Await(method string, n int) []Call {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if got := f.Of(method); len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("%s called %d times, want %d", method, len(f.Of(method)), n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
