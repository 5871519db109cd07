package bots

import (
	"context"
	"log/slog"
	"strings"
	"sync"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/alerts"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/chat"
	"github.com/honehq/hone/internal/learning"
	"github.com/honehq/hone/internal/score"
)

// Answerer answers a tester's message as the web chat does: the chat
// router first, then the model under test (a playground.Chat) or the
// application's relay, recording the answer as a turn.
type Answerer interface {
	Send(ctx context.Context, t capture.Tester, text string, onDelta func(string)) (chat.Reply, error)
}

// Router is the chat router: a 👎's comment goes to it as the tester's
// next message, for the learning loop's correction dialogue to take.
type Router interface {
	Handle(ctx context.Context, m chat.Message) (chat.Reply, error)
}

// Rater records the rating of a turn and the correction a 👎 came with:
// learning.Service.
type Rater interface {
	RateTurn(ctx context.Context, turnID string, in learning.RatingInput) (*learning.Rating, error)
	Correct(ctx context.Context, t capture.Tester, text string) (chat.Reply, error)
}

// Reactor records a reaction to an alert: alerts.Service.
type Reactor interface {
	React(ctx context.Context, alertID string, in alerts.ReactionInput) (*alerts.Reacted, error)
}

// Namer keeps testers' display names for pages: capture.Names.
type Namer interface {
	SetTesterName(ctx context.Context, testerID, name string) error
}

// Options configure a Service.
type Options struct {
	// Answer answers messages; nil answers chat commands only, and other
	// messages with NoAnswerText and Unavailable.
	Answer      Answerer
	Unavailable error
	Router      Router
	Ratings     Rater
	Alerts      Reactor
	// Allow is who may talk to the bot (HONE_CHAT_ALLOW); empty lets
	// everyone.
	Allow Allow
	// Names keep the display names platforms give testers; nil keeps none.
	Names Namer
	Log   *slog.Logger
}

// Service is hone's Bot: every platform's adapter talks to it.
type Service struct {
	opts    Options
	log     *slog.Logger
	refused sync.Map
	// Deliverers are the adapters that deliver alerts, by platform: an
	// adapter adds itself when it starts.
	Deliverers *Deliverers
}

var _ Bot = (*Service)(nil)

// NewService returns the bot over the domain services of opts.
func NewService(opts Options) *Service {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	return &Service{opts: opts, log: opts.Log, Deliverers: NewDeliverers(opts.Log)}
}

// Replies of the bot itself.
const (
	// RefusalText is the one answer a sender who may not talk to the bot
	// gets.
	RefusalText = "Sorry, this bot only talks to the testers its team has listed. Ask them to add you if you should be one."
	// NoAnswerText opens the reply to a message nothing can answer: no
	// model is set up and no relay named.
	NoAnswerText = "⚠️ Nothing answers messages here yet"
)

// Tester is who sent in, as hone records them: the conversation and the
// user ids prefixed with the platform.
func (in Incoming) Tester() capture.Tester {
	return capture.Tester{ConversationID: in.Platform + ":" + in.ConversationID, TesterID: in.Platform + ":" + in.UserID}
}

// refuse answers a sender the allow list leaves out: the refusal the first
// time, nothing after.
func (s *Service) refuse(in Incoming) (Outgoing, bool) {
	if s.opts.Allow.Permits(in) {
		return Outgoing{}, false
	}
	if _, told := s.refused.LoadOrStore(in.Platform+":"+in.UserID, true); told {
		return Outgoing{Refused: true}, true
	}
	s.log.Info("a sender not on the allow list was refused", "platform", in.Platform, "user_id", in.UserID)
	return Outgoing{Refused: true, Text: RefusalText}, true
}

// keepName keeps the sender's display name, when the platform gave one;
// a failure is logged and the message handled all the same.
func (s *Service) keepName(ctx context.Context, in Incoming) {
	if s.opts.Names == nil || strings.TrimSpace(in.UserName) == "" {
		return
	}
	if err := s.opts.Names.SetTesterName(ctx, in.Tester().TesterID, in.UserName); err != nil {
		s.log.WarnContext(ctx, "bot: the tester's display name was not kept", "platform", in.Platform, "user_id", in.UserID, "err", err)
	}
}

// Message answers a tester's message, as the web chat does.
func (s *Service) Message(ctx context.Context, in Incoming) (Outgoing, error) {
	if out, refused := s.refuse(in); refused {
		return out, nil
	}
	s.keepName(ctx, in)
	t := in.Tester()
	var r chat.Reply
	var err error
	if s.opts.Answer != nil {
		r, err = s.opts.Answer.Send(ctx, t, in.Text, nil)
	} else if r, err = s.opts.Router.Handle(ctx, chat.Message{Tester: t, Text: in.Text}); err == nil && !r.Command {
		why := "set HONE_LLM_* and a prompt file, or HONE_CHAT_RELAY_URL"
		if s.opts.Unavailable != nil {
			why = hone.ErrorMessage(s.opts.Unavailable)
		}
		r = chat.Reply{Text: NoAnswerText + ": " + why}
	}
	if err != nil {
		if hone.ErrorCode(err) == hone.EINVALID {
			return Outgoing{Text: "⚠️ " + hone.ErrorMessage(err)}, nil
		}
		return Outgoing{}, err
	}
	return outgoing(r), nil
}

// outgoing is what the adapter shows of a chat reply.
func outgoing(r chat.Reply) Outgoing {
	out := Outgoing{Text: r.Text, Ack: r.Ack, TurnID: r.TurnID}
	if r.File != nil {
		out.File = &File{Name: r.File.Name, Data: r.File.Data, Link: r.File.Link}
	}
	return out
}

// Rate records a 👍/👎 of an answer through the learning loop; a 👎's
// comment is then the tester's correction, and a 👎 without one asks for it.
func (s *Service) Rate(ctx context.Context, r Rating) (Outgoing, error) {
	if out, refused := s.refuse(r.Incoming); refused {
		return out, nil
	}
	s.keepName(ctx, r.Incoming)
	t := r.Tester()
	rating := learning.RatingDown
	if r.Up {
		rating = learning.RatingUp
	}
	_, err := s.opts.Ratings.RateTurn(ctx, r.TurnID, learning.RatingInput{TesterID: t.TesterID, Rating: rating, Source: score.SourceChat})
	if err != nil {
		return s.failed(ctx, "rate an answer", t, err)
	}
	if r.Up {
		return Outgoing{Ack: true}, nil
	}
	if r.Comment == "" {
		return Outgoing{Text: learning.AskCorrectionText}, nil
	}
	reply, err := s.opts.Ratings.Correct(ctx, t, r.Comment)
	if err != nil {
		return s.failed(ctx, "keep a correction", t, err)
	}
	return outgoing(reply), nil
}

// React records a press under an alert as !ack, 👍 and 👎 do in chat.
func (s *Service) React(ctx context.Context, p AlertPress) (Outgoing, error) {
	if out, refused := s.refuse(p.Incoming); refused {
		return out, nil
	}
	s.keepName(ctx, p.Incoming)
	t := p.Tester()
	out, err := s.opts.Alerts.React(ctx, p.AlertID, alerts.ReactionInput{TesterID: t.TesterID, Reaction: p.Reaction})
	if err != nil {
		return s.failed(ctx, "react to an alert", t, err)
	}
	if out.Paused {
		return Outgoing{Text: "Noted. Alerts of type " + out.Type + " are paused: " + out.PauseNote + ". hone alerts enable " + out.Type + " resumes them."}, nil
	}
	return Outgoing{Ack: true}, nil
}

// failed is the reply to a judgment that could not be kept: what was wrong
// with it, or the spec's failed-save reply with the error.
func (s *Service) failed(ctx context.Context, what string, t capture.Tester, err error) (Outgoing, error) {
	switch hone.ErrorCode(err) {
	case hone.EINVALID, hone.ENOTFOUND, hone.ECONFLICT, hone.EFORBIDDEN:
		return Outgoing{Text: "⚠️ " + hone.ErrorMessage(err)}, nil
	}
	s.log.ErrorContext(ctx, "bot: "+what, "conversation_id", t.ConversationID, "tester_id", t.TesterID, "err", err)
	return Outgoing{Text: chat.FailedSaveText}, err
}
