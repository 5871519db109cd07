package storage_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
	"github.com/honehq/hone/internal/storage"
	"github.com/honehq/hone/internal/storage/storagetest"
	"github.com/honehq/hone/internal/tuning"
)

// tick makes db's clock advance one second per reading from a fixed start.
func tick(db *storage.DB) {
	var mu sync.Mutex
	now := time.Date(2025, 10, 24, 10, 0, 0, 0, time.UTC)
	db.Now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
}

func turnInput(conv, msg string) capture.TurnInput {
	return capture.TurnInput{ConversationID: conv, TesterID: "meg", TesterEmail: "meg@example.com",
		UserMessage: msg, Response: "answer to " + msg}
}

// record records in through the capture domain, unmeasured.
func record(db *storage.DB, in capture.TurnInput) (*capture.Turn, error) {
	t, _, err := capture.NewRecorder(db.Capture(), nil).Record(context.Background(), in, "")
	return t, err
}

func mustTurn(t *testing.T, db *storage.DB, in capture.TurnInput) *capture.Turn {
	t.Helper()
	turn, err := record(db, in)
	if err != nil {
		t.Fatal(err)
	}
	return turn
}

func allTurns(t *testing.T, db *storage.DB, sessionID string) []*tuning.Turn {
	t.Helper()
	var out []*tuning.Turn
	if err := db.Tuning().EachTurn(context.Background(), sessionID, func(turn *tuning.Turn) error {
		out = append(out, turn)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRecordTurnNumbersTurnsInOneSession(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		tick(db)
		ctx := context.Background()
		sim, ms := 0.82, 1234.5
		in := turnInput("c1", "first")
		in.PromptVersion, in.Branch = "fc26922", "prompt-tuning"
		in.SearchResults = json.RawMessage(`[{"chunk_text":"Policy text","similarity":0.8}]`)
		in.AvgSimilarity, in.ProcessingTimeMS = &sim, &ms
		in.Metadata = json.RawMessage(`{"channel":"teams"}`)
		t1 := mustTurn(t, db, in)
		t2 := mustTurn(t, db, turnInput("c1", "second"))
		if t1.Number != 1 || t2.Number != 2 || t1.SessionID != t2.SessionID {
			t.Fatalf("turns %d,%d in sessions %s,%s; want 1,2 in one session", t1.Number, t2.Number, t1.SessionID, t2.SessionID)
		}
		s, err := db.Capture().FindSession(ctx, t1.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		if s.TotalTurns != 2 || s.PromptVersion != "fc26922" || s.Branch != "prompt-tuning" ||
			s.TesterID != "meg" || s.TesterEmail != "meg@example.com" || s.End != nil || len(s.ID) != 8 {
			t.Fatalf("session = %+v", s)
		}
		got := allTurns(t, db, s.ID)
		if len(got) != 2 || got[0].UserMessage != "first" || got[1].Response != "answer to second" {
			t.Fatalf("turns = %+v", got)
		}
		var sr []map[string]any
		if err := json.Unmarshal(got[0].SearchResults, &sr); err != nil || sr[0]["chunk_text"] != "Policy text" {
			t.Fatalf("search_results = %s (%v)", got[0].SearchResults, err)
		}
		if *got[0].AvgSimilarity != sim || *got[0].ProcessingTimeMS != ms || got[1].AvgSimilarity != nil {
			t.Fatalf("numbers not kept: %+v", got[0])
		}
		var meta map[string]string
		if err := json.Unmarshal(got[0].Metadata, &meta); err != nil || meta["channel"] != "teams" {
			t.Fatalf("metadata = %s", got[0].Metadata)
		}
		if !got[0].Timestamp.Before(got[1].Timestamp) {
			t.Fatalf("timestamps %v, %v not in order", got[0].Timestamp, got[1].Timestamp)
		}
	})
}

func TestRecordTurnStartsNewSessionOnNewPromptVersion(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		in := turnInput("c1", "q")
		in.PromptVersion = "v1"
		a := mustTurn(t, db, in)
		b := mustTurn(t, db, turnInput("c1", "same deployment, version not given"))
		in.PromptVersion = "v2"
		c := mustTurn(t, db, in)
		if a.SessionID != b.SessionID || c.SessionID == a.SessionID || c.Number != 1 {
			t.Fatalf("sessions %s %s %s, c.Number %d", a.SessionID, b.SessionID, c.SessionID, c.Number)
		}
		old, _ := db.Capture().FindSession(ctx, a.SessionID)
		cur, _ := db.Capture().CurrentSession(ctx, "c1")
		if old.End == nil || old.TotalTurns != 2 || cur.ID != c.SessionID || cur.PromptVersion != "v2" {
			t.Fatalf("old %+v current %+v", old, cur)
		}
	})
}

func TestRecordTurnRejectsBadInputAndWritesNothing(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		bad := 1.5
		for field, in := range map[string]capture.TurnInput{
			"conversation_id": {TesterID: "m", UserMessage: "q", Response: "r"},
			"tester_id":       {ConversationID: "c", TesterID: " ", UserMessage: "q", Response: "r"},
			"user_message":    {ConversationID: "c", TesterID: "m", Response: "r"},
			"response":        {ConversationID: "c", TesterID: "m", UserMessage: "q"},
			"avg_similarity":  {ConversationID: "c", TesterID: "m", UserMessage: "q", Response: "r", AvgSimilarity: &bad},
			"search_results":  {ConversationID: "c", TesterID: "m", UserMessage: "q", Response: "r", SearchResults: json.RawMessage(`{`)},
			"metadata":        {ConversationID: "c", TesterID: "m", UserMessage: "q", Response: "r", Metadata: json.RawMessage(`[1]`)},
			"tester_email":    {ConversationID: "c", TesterID: "m", TesterEmail: "nope", UserMessage: "q", Response: "r"},
		} {
			_, err := record(db, in)
			if hone.ErrorCode(err) != hone.EINVALID || hone.ErrorField(err) != field {
				t.Errorf("%s: err = %v, want EINVALID naming the field", field, err)
			}
		}
		if list, _ := db.Capture().ListSessions(context.Background(), capture.SessionFilter{}); len(list) != 0 {
			t.Fatalf("bad input wrote %d sessions", len(list))
		}
	})
}

func TestImprovementsAttachToLatestTurn(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		tick(db)
		ctx := context.Background()
		if _, err := db.Tuning().AddImprovement(ctx, "c1", "", "too early"); !errors.Is(err, capture.ErrNoTurn) {
			t.Fatalf("no turn yet: err = %v", err)
		}
		mustTurn(t, db, turnInput("c1", "one"))
		last := mustTurn(t, db, turnInput("c1", "two"))
		for _, n := range []struct{ cat, note string }{{"", "first"}, {"tone", "second"}, {"", "third"}} {
			imp, err := db.Tuning().AddImprovement(ctx, "c1", n.cat, n.note)
			if err != nil {
				t.Fatal(err)
			}
			if imp.TurnID != last.ID || imp.SessionID != last.SessionID {
				t.Fatalf("improvement on %s, want %s", imp.TurnID, last.ID)
			}
		}
		turns := allTurns(t, db, last.SessionID)
		if len(turns[0].Improvements) != 0 || len(turns[1].Improvements) != 3 {
			t.Fatalf("improvements %d, %d", len(turns[0].Improvements), len(turns[1].Improvements))
		}
		got := turns[1].Improvements
		if got[0].Note != "first" || got[1].Category != "tone" || got[1].Note != "second" || got[2].Note != "third" {
			t.Fatalf("improvements = %+v", got)
		}
		s, _ := db.Capture().FindSession(ctx, last.SessionID)
		if s.TotalImprovements != 3 {
			t.Fatalf("total_improvements = %d", s.TotalImprovements)
		}
	})
}

func TestResetAndResumeSessions(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		tick(db)
		ctx := context.Background()
		meg := capture.Tester{ConversationID: "c1", TesterID: "meg"}
		in := turnInput("c1", "q")
		in.PromptVersion, in.Branch = "v7", "prompt-tuning"
		first := mustTurn(t, db, in)
		prev, next, err := db.Capture().ResetSession(ctx, meg)
		if err != nil {
			t.Fatal(err)
		}
		if prev.ID != first.SessionID || prev.End == nil || next.ID == prev.ID || next.PromptVersion != "v7" || next.Branch != "prompt-tuning" {
			t.Fatalf("prev %+v next %+v", prev, next)
		}
		if _, err := db.Tuning().AddImprovement(ctx, "c1", "", "x"); !errors.Is(err, capture.ErrNoTurn) {
			t.Fatalf("new session must have no turn to improve, err = %v", err)
		}
		if turns := allTurns(t, db, prev.ID); len(turns) != 1 {
			t.Fatalf("old session lost its turns: %d", len(turns))
		}
		if _, err := db.Capture().ResumeSession(ctx, capture.Tester{ConversationID: "c1", TesterID: "barry"}, prev.ID); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Fatalf("another tester resumed Meg's session: err = %v", err)
		}
		resumed, err := db.Capture().ResumeSession(ctx, meg, prev.ID)
		if err != nil || resumed.ID != prev.ID || resumed.End != nil {
			t.Fatalf("resume = %+v, %v", resumed, err)
		}
		if cur, _ := db.Capture().CurrentSession(ctx, "c1"); cur.ID != prev.ID {
			t.Fatalf("current = %s", cur.ID)
		}
		if ended, _ := db.Capture().FindSession(ctx, next.ID); ended.End == nil {
			t.Fatal("resume did not end the session it replaced")
		}
		if second := mustTurn(t, db, turnInput("c1", "again")); second.SessionID != prev.ID || second.Number != 2 {
			t.Fatalf("turn after resume: %+v", second)
		}
		first2, _, err := db.Capture().ResetSession(ctx, capture.Tester{ConversationID: "fresh", TesterID: "meg"})
		if err != nil || first2 != nil {
			t.Fatalf("reset of a new conversation: prev %v err %v", first2, err)
		}
	})
}

func TestListSessionsNewestFirstByTester(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		tick(db)
		ctx := context.Background()
		for i, tester := range []string{"meg", "barry", "meg"} {
			in := turnInput(fmt.Sprint("c", i), "q")
			in.TesterID = tester
			mustTurn(t, db, in)
		}
		all, err := db.Capture().ListSessions(ctx, capture.SessionFilter{})
		if err != nil || len(all) != 3 || all[0].ConversationID != "c2" || all[2].ConversationID != "c0" {
			t.Fatalf("all = %v, %v", all, err)
		}
		megs, _ := db.Capture().ListSessions(ctx, capture.SessionFilter{TesterID: "meg"})
		if len(megs) != 2 || megs[0].TesterID != "meg" || megs[1].TesterID != "meg" {
			t.Fatalf("meg's = %v", megs)
		}
		page, _ := db.Capture().ListSessions(ctx, capture.SessionFilter{Limit: 1, Offset: 1})
		if len(page) != 1 || page[0].ConversationID != "c1" {
			t.Fatalf("page = %v", page)
		}
		if _, err := db.Capture().FindSession(ctx, "nope"); hone.ErrorCode(err) != hone.ENOTFOUND {
			t.Fatalf("FindSession(nope) err = %v", err)
		}
	})
}

func TestConcurrentTurnsAndImprovementsKeepTotals(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		mustTurn(t, db, turnInput("c1", "seed"))
		const workers, each = 8, 25
		var wg sync.WaitGroup
		errs := make(chan error, workers*each*2)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					if _, err := record(db, turnInput("c1", fmt.Sprint(w, "-", i))); err != nil {
						errs <- err
					}
					if _, err := db.Tuning().AddImprovement(ctx, "c1", "", "note"); err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		s, _ := db.Capture().CurrentSession(ctx, "c1")
		turns := allTurns(t, db, s.ID)
		imps := 0
		for i, turn := range turns {
			if turn.Number != i+1 {
				t.Fatalf("turn %d numbered %d", i+1, turn.Number)
			}
			imps += len(turn.Improvements)
		}
		if want := 1 + workers*each; s.TotalTurns != want || len(turns) != want {
			t.Fatalf("total_turns %d, rows %d, want %d", s.TotalTurns, len(turns), want)
		}
		if s.TotalImprovements != workers*each || imps != workers*each {
			t.Fatalf("total_improvements %d, rows %d, want %d", s.TotalImprovements, imps, workers*each)
		}
	})
}

func TestFailingWriteRollsBackAloneAmongConcurrentOnes(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, db *storage.DB) {
		ctx := context.Background()
		mustTurn(t, db, turnInput("good", "seed"))
		var wg sync.WaitGroup
		var mu sync.Mutex
		var okCount, noTurn int
		for i := range 200 {
			wg.Go(func() {
				conv := "good"
				if i%2 == 1 {
					conv = fmt.Sprint("empty-", i)
					if _, _, err := db.Capture().ResetSession(ctx, capture.Tester{ConversationID: conv, TesterID: "meg"}); err != nil {
						t.Error(err)
					}
				}
				_, err := db.Tuning().AddImprovement(ctx, conv, "", "note")
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					okCount++
				case errors.Is(err, capture.ErrNoTurn):
					noTurn++
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		s, _ := db.Capture().CurrentSession(ctx, "good")
		if okCount != 100 || noTurn != 100 || s.TotalImprovements != 100 {
			t.Fatalf("ok %d, no turn %d, total_improvements %d; want 100 each", okCount, noTurn, s.TotalImprovements)
		}
	})
}
