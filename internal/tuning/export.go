package tuning

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/capture"
)

// TimestampFormat is the ISO 8601 form timestamps take in exports.
const TimestampFormat = "2006-01-02T15:04:05Z"

// DefaultAppName names the application under test in exports and replies when
// none is configured.
const DefaultAppName = "Bot"

// CSVHeader returns the export's header row for an application named appName.
func CSVHeader(appName string) []string {
	if appName == "" {
		appName = DefaultAppName
	}
	return []string{"Turn", "User Message", appName + " Response", "Improvement Notes", "Category",
		"Objective Score", "Subjective Score", "Overall Score", "Timestamp"}
}

// FormatScore formats a composite score for the CSV export: two decimals, or
// empty when the score is N/A.
func FormatScore(p *float64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatFloat(*p, 'f', 2, 64)
}

// flushEvery is how many turns are written between flushes of a streamed export.
const flushEvery = 256

// WriteCSV writes the session's turns as CSV: one row per improvement with the
// turn repeated, one row with empty note and category for a turn without any.
// The CSV is valid UTF-8 whatever the database holds, and a text cell a
// spreadsheet would take for a formula starts with an apostrophe
// (hone.SpreadsheetSafe); the JSON export keeps every text exact.
func WriteCSV(ctx context.Context, w io.Writer, store Store, s *capture.Session, appName string) error {
	return writeCSV(ctx, w, store, s, appName, nil)
}

// writeCSV is WriteCSV; with judged (judgments by turn id) not nil, the
// JudgmentColumns follow the spec's.
func writeCSV(ctx context.Context, w io.Writer, store Store, s *capture.Session, appName string, judged map[string][]Judgment) error {
	cw := csv.NewWriter(w)
	header := CSVHeader(appName)
	if judged != nil {
		header = append(header, JudgmentColumns...)
	}
	for i := range header {
		header[i] = hone.SpreadsheetSafe(header[i])
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	n := 0
	row := make([]string, len(header))
	err := store.EachTurn(ctx, s.ID, func(t *Turn) error {
		if judged != nil {
			for i, c := range judgmentCells(judged[t.ID]) {
				row[9+i] = hone.SpreadsheetSafe(hone.CleanText(c))
			}
		}
		row[0] = strconv.Itoa(t.Number)
		row[1] = hone.SpreadsheetSafe(hone.CleanText(t.UserMessage))
		row[2] = hone.SpreadsheetSafe(hone.CleanText(t.Response))
		row[5], row[6], row[7] = FormatScore(t.ObjectiveScore), FormatScore(t.SubjectiveScore), FormatScore(t.OverallScore)
		row[8] = t.Timestamp.UTC().Format(TimestampFormat)
		if len(t.Improvements) == 0 {
			row[3], row[4] = "", ""
			if err := cw.Write(row); err != nil {
				return err
			}
		}
		for _, imp := range t.Improvements {
			row[3], row[4] = hone.SpreadsheetSafe(hone.CleanText(imp.Note)), hone.SpreadsheetSafe(hone.CleanText(imp.Category))
			if err := cw.Write(row); err != nil {
				return err
			}
		}
		if n++; n%flushEvery == 0 {
			cw.Flush()
			if f, ok := w.(interface{ Flush() }); ok {
				f.Flush()
			}
			return cw.Error()
		}
		return nil
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// jsonSession is the session part of a JSON export.
type jsonSession struct {
	*capture.Session
	DurationSeconds float64 `json:"duration_seconds"`
}

// WriteJSON writes the session and all its turns with their improvements as
// one JSON object, {"session": {...}, "turns": [...]}, streamed turn by turn.
// The JSON is valid UTF-8 whatever the database holds.
func WriteJSON(ctx context.Context, w io.Writer, store Store, s *capture.Session, now time.Time) error {
	return writeJSON(ctx, w, store, s, now, nil)
}

// writeJSON is WriteJSON; with judged (judgments by turn id) not nil, each
// turn carries its judgments.
func writeJSON(ctx context.Context, w io.Writer, store Store, s *capture.Session, now time.Time, judged map[string][]Judgment) error {
	head, err := json.Marshal(jsonSession{Session: s, DurationSeconds: s.Duration(now).Seconds()})
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, `{"session":`); err != nil {
		return err
	}
	if _, err := w.Write(head); err != nil {
		return err
	}
	if _, err := io.WriteString(w, `,"turns":[`); err != nil {
		return err
	}
	n := 0
	err = store.EachTurn(ctx, s.ID, func(t *Turn) error {
		if t.Improvements == nil {
			t.Improvements = []Improvement{}
		}
		if t.Scores == nil {
			t.Scores = map[string]int{}
		}
		if judged != nil {
			if t.Judgments = judged[t.ID]; t.Judgments == nil {
				t.Judgments = []Judgment{}
			}
		}
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		if !utf8.Valid(b) {
			b = bytes.ToValidUTF8(b, []byte(hone.Replacement))
		}
		if n > 0 {
			if _, err := io.WriteString(w, ","); err != nil {
				return err
			}
		}
		n++
		_, err = w.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, "]}\n")
	return err
}

// errTooLarge stops an export that would not fit a chat message.
var errTooLarge = errors.New("export larger than the message limit")

// limitedBuffer collects up to limit bytes and fails past that.
type limitedBuffer struct {
	buf   []byte
	limit int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if len(b.buf)+len(p) > b.limit {
		return 0, errTooLarge
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// Export is a session's export, ready to be written.
type Export struct {
	Filename    string
	ContentType string
	// Write streams the export.
	Write func(w io.Writer) error
}

// Export returns the export of session id in format, csv or json; an
// ENOTFOUND error for an unknown session or format.
func (s *Service) Export(ctx context.Context, id, format string) (*Export, error) {
	if format != "csv" && format != "json" {
		return nil, hone.Errorf(hone.ENOTFOUND, "no export format %q: use csv or json", format)
	}
	sess, err := s.sessions.FindSession(ctx, id)
	if err != nil {
		return nil, err
	}
	judged, err := s.judged(ctx, sess.ID)
	if err != nil {
		return nil, err
	}
	e := &Export{Filename: exportName(sess.ID, format)}
	if format == "csv" {
		e.ContentType = "text/csv; charset=utf-8"
		e.Write = func(w io.Writer) error { return writeCSV(ctx, w, s.store, sess, s.opts.AppName, judged) }
	} else {
		e.ContentType = "application/json"
		e.Write = func(w io.Writer) error { return writeJSON(ctx, w, s.store, sess, s.opts.Now(), judged) }
	}
	return e, nil
}

// judged are the judgments of the session's turns the exports carry; nil
// when the service reads none.
func (s *Service) judged(ctx context.Context, sessionID string) (map[string][]Judgment, error) {
	if s.judgments == nil {
		return nil, nil
	}
	return s.judgments.SessionJudgments(ctx, sessionID)
}
