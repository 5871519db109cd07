package web

import (
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/llm"
	"github.com/honehq/hone/internal/playground"
	"github.com/honehq/hone/internal/score"
	"github.com/honehq/hone/internal/server"
	"github.com/honehq/hone/internal/tuning"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// TesterCookie holds the browser's random tester id in the web chat.
const TesterCookie = "hone_tester"

// PromptHelp tells a user how to give the web chat a prompt file.
const PromptHelp = `The chat needs the system prompt file the model answers under. Set:

  HONE_PROMPT_FILE   the prompt file; several, comma-separated, to choose between them

or pass it to the server, once per file:

  export HONE_PROMPT_FILE=MASTER_PROMPT.md
  hone serve --prompt MASTER_PROMPT.md
`

const (
	testerIDLength = 16
	// chatHistoryTurns is how many of the session's turns the page shows.
	chatHistoryTurns = 20
)

// markdown renders replies. Its renderer omits raw HTML and dangerous links.
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.Table, extension.Strikethrough),
	goldmark.WithRendererOptions(html.WithHardWraps()),
)

// chatSetup is the web chat's set-up: one entry per prompt file, and why it
// cannot answer when it cannot.
type chatSetup struct {
	prompts []*chatPrompt
	byName  map[string]*chatPrompt
	// llmErr says why there is no LLM to answer; llmHelp how to set one up.
	llmErr  error
	llmHelp string
	// noPrompts is set when no prompt file is configured.
	noPrompts bool
}

// chatPrompt is a prompt file the chat offers, with its playground chat.
type chatPrompt struct {
	Name string
	g    *playground.Chat
}

func (c *chatSetup) ready() bool { return c.llmErr == nil && !c.noPrompts }

// message says what to set before the chat can work.
func (c *chatSetup) message() string {
	var parts []string
	if c.llmErr != nil {
		parts = append(parts, hone.ErrorMessage(c.llmErr)+"\n\n"+c.llmHelp)
	}
	if c.noPrompts {
		parts = append(parts, PromptHelp)
	}
	return strings.Join(parts, "\n")
}

// EnableChat sets up the chat at /chat: one conversation per prompt file,
// answered by client. When client is nil, llmErr says why (nil means the LLM
// is not configured at all), and the page and POST /chat/messages say which
// variables to set. Call it before serving.
func (u *UI) EnableChat(client *llm.Client, prompts []*playground.Prompt, llmErr error) {
	c := &chatSetup{byName: map[string]*chatPrompt{}, llmHelp: llm.ConfigHelp, noPrompts: len(prompts) == 0}
	if client == nil {
		c.llmErr = llmErr
		if c.llmErr == nil {
			c.llmErr = llm.Config{}.Validate()
		}
	}
	for _, p := range prompts {
		cp := &chatPrompt{Name: p.Name()}
		if _, taken := c.byName[cp.Name]; taken {
			cp.Name = p.Path()
		}
		if client != nil {
			cp.g = playground.New(u.Turns, u.Chat, client, p, u.Logger)
			if u.Learning != nil {
				cp.g.Augment(u.Learning)
			}
		}
		c.prompts = append(c.prompts, cp)
		c.byName[cp.Name] = cp
	}
	u.chat = c
}

// chatTurn is an earlier turn of the session as the page shows it.
type chatTurn struct {
	ID       string
	User     string
	Response template.HTML
	// Rating is the tester's 👍 ("up") or 👎 ("down") of it, "" for none.
	Rating string
}

func (u *UI) showChat(w http.ResponseWriter, r *http.Request) error {
	c := u.chat
	w.Header().Set("Cache-Control", "no-store")
	data := map[string]any{"Title": "Chat", "AppName": u.Tuning.AppName()}
	if !c.ready() {
		data["LLMError"], data["LLMHelp"], data["PromptHelp"] = "", "", ""
		if c.llmErr != nil {
			data["LLMError"], data["LLMHelp"] = hone.ErrorMessage(c.llmErr), c.llmHelp
		}
		if c.noPrompts {
			data["PromptHelp"] = PromptHelp
		}
		u.Render(w, r, http.StatusOK, "chat", data)
		return nil
	}
	p := c.prompts[0]
	if name := r.URL.Query().Get("prompt"); name != "" {
		if p = c.byName[name]; p == nil {
			return hone.Errorf(hone.ENOTFOUND, "no prompt file %q: the server offers %s", name, c.names())
		}
	}
	tester := chatTester(testerID(w, r), p.Name)
	s, err := p.g.Open(r.Context(), tester)
	if err != nil {
		return err
	}
	turns, err := u.Sessions.RecentTurns(r.Context(), s.ID, chatHistoryTurns)
	if err != nil {
		return err
	}
	rated := map[string]string{}
	if u.Learning != nil {
		if rated, err = u.Learning.TesterRatings(r.Context(), tester.TesterID, 4*chatHistoryTurns); err != nil {
			return err
		}
	}
	shown := make([]chatTurn, len(turns))
	for i, t := range turns {
		shown[i] = chatTurn{ID: t.ID, User: t.UserMessage, Response: renderMarkdown(t.Response), Rating: rated[t.ID]}
	}
	data["Ready"], data["Prompts"], data["Current"] = true, c.prompts, p.Name
	data["SessionID"], data["Version"], data["Turns"] = s.ID, s.PromptVersion, shown
	data["Rating"] = u.Learning != nil
	u.Render(w, r, http.StatusOK, "chat", data)
	return nil
}

func (c *chatSetup) names() string {
	names := make([]string, len(c.prompts))
	for i, p := range c.prompts {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// chatReply is the answer of POST /chat/messages.
type chatReply struct {
	Command   bool   `json:"command"`
	ReplyHTML string `json:"reply_html"`
	Ack       bool   `json:"ack"`
	SessionID string `json:"session_id"`
	Failed    bool   `json:"failed"`
	// TurnID is the turn of an answer of the model, for its rating buttons.
	TurnID string `json:"turn_id,omitempty"`
	// AckText words an acknowledgement without a reply: what was saved.
	AckText string `json:"ack_text,omitempty"`
	// File is the document a reply carries (!print's CSV), for the page's
	// Copy and Download buttons.
	File *chatFile `json:"file,omitempty"`
}

// chatFile is a document of a reply: its content when it is small enough
// to carry, else its download link.
type chatFile struct {
	Name string `json:"name"`
	Data string `json:"data,omitempty"`
	Link string `json:"link,omitempty"`
}

// ackText words the acknowledgement of text, a command that hone answered
// with Ack alone: the note of !improve, with its category; "" for another
// command, whose acknowledgement stays a reaction.
func ackText(text string) string {
	name, args, _ := strings.Cut(strings.TrimSpace(text), " ")
	if !strings.EqualFold(strings.TrimPrefix(name, "!"), "improve") {
		return ""
	}
	category, note := tuning.ParseNote(args)
	if category != "" {
		return "Note saved on this answer (" + category + "): " + note
	}
	return "Note saved on this answer: " + note
}

func (u *UI) postChatMessage(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	c := u.chat
	if !c.ready() {
		return hone.Errorf(hone.EUNAVAILABLE, "%s", c.message())
	}
	cookie, err := r.Cookie(TesterCookie)
	if err != nil || !validID(cookie.Value, testerIDLength) {
		return hone.Errorf(hone.EFORBIDDEN, "no tester cookie: reload the page")
	}
	var in struct {
		Prompt string `json:"prompt"`
		Text   string `json:"text"`
		// Name is the display name the person gave, kept in their browser.
		Name string `json:"name"`
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return hone.Errorf(hone.ETOOLARGE, "the message is too long")
		}
		return hone.Errorf(hone.EINVALID, "the body must be JSON {\"prompt\": …, \"text\": …}")
	}
	p := c.byName[in.Prompt]
	if p == nil {
		return hone.Errorf(hone.ENOTFOUND, "no prompt file %q: the server offers %s", in.Prompt, c.names())
	}
	tester := chatTester(cookie.Value, p.Name)
	if name := strings.TrimSpace(in.Name); name != "" && u.Names != nil {
		if err := u.Names.SetTesterName(r.Context(), tester.TesterID, name); err != nil {
			if hone.ErrorCode(err) == hone.EINVALID {
				return err
			}
			u.Logger.WarnContext(r.Context(), "could not keep a tester's name", "tester_id", tester.TesterID, "err", err)
		}
	}
	reply, err := p.g.Send(r.Context(), tester, in.Text, nil)
	if err != nil {
		return err
	}
	out := chatReply{Command: reply.Command, Ack: reply.Ack, SessionID: reply.SessionID, Failed: reply.Failed, TurnID: reply.TurnID}
	if reply.Text != "" {
		out.ReplyHTML = string(renderMarkdown(reply.Text))
	} else if reply.Ack {
		out.AckText = ackText(in.Text)
	}
	if f := reply.File; f != nil {
		out.File = &chatFile{Name: f.Name, Link: f.Link}
		if f.Link == "" {
			out.File.Data = string(f.Data)
		}
	}
	return server.WriteJSON(w, http.StatusOK, out)
}

func chatTester(id, prompt string) capture.Tester {
	return capture.Tester{ConversationID: "web:" + id + ":" + prompt, TesterID: "web:" + id}
}

// testerID returns the browser's tester id, giving it one when it has none.
func testerID(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(TesterCookie); err == nil && validID(c.Value, testerIDLength) {
		return c.Value
	}
	id := hone.NewID(testerIDLength)
	setYearCookie(w, r, TesterCookie, id, "/chat", http.SameSiteLaxMode)
	return id
}

func renderMarkdown(text string) template.HTML {
	var b strings.Builder
	if err := markdown.Convert([]byte(text), &b); err != nil {
		return template.HTML("<p>" + template.HTMLEscapeString(text) + "</p>")
	}
	return template.HTML(b.String())
}

// chatRating is the answer of POST /chat/turns/{id}/feedback.
type chatRating struct {
	Rating string `json:"rating"`
	// Ask is the question a 👎 asks; the next message is the correction.
	Ask string `json:"ask,omitempty"`
}

// rateChatTurn records the browser tester's 👍 or 👎 of an answer.
func (u *UI) rateChatTurn(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	if u.Learning == nil {
		return hone.Errorf(hone.EUNAVAILABLE, "ratings are not available")
	}
	cookie, err := r.Cookie(TesterCookie)
	if err != nil || !validID(cookie.Value, testerIDLength) {
		return hone.Errorf(hone.EFORBIDDEN, "no tester cookie: reload the page")
	}
	var in struct {
		Rating string `json:"rating"`
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return hone.Errorf(hone.EINVALID, "the body must be JSON {\"rating\": \"up\" or \"down\"}")
	}
	rt, err := u.Learning.RateTurn(r.Context(), r.PathValue("id"), learning.RatingInput{TesterID: chatTester(cookie.Value, "").TesterID,
		Rating: in.Rating, Source: score.SourceWeb})
	if err != nil {
		return err
	}
	out := chatRating{Rating: rt.Rating}
	if rt.Rating == learning.RatingDown {
		out.Ask = learning.AskCorrectionText
	}
	return server.WriteJSON(w, http.StatusOK, out)
}
