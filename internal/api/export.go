package api

import (
	"bufio"
	"log/slog"
	"net/http"

	"github.com/honehq/hone/internal/tuning"
)

// flushWriter flushes the buffered response to the client when asked, so a
// long export streams instead of waiting for its end.
type flushWriter struct {
	*bufio.Writer
	w http.ResponseWriter
}

func (f flushWriter) Flush() {
	_ = f.Writer.Flush()
	if fl, ok := f.w.(http.Flusher); ok {
		fl.Flush()
	}
}

// ServeExport streams a session's export as a download; the API and the web
// UI both serve it.
func ServeExport(w http.ResponseWriter, r *http.Request, engine *tuning.Engine, id, format string, log *slog.Logger) {
	ctx := r.Context()
	s, err := engine.Store().FindSession(ctx, id)
	if err != nil {
		writeError(w, r, log, err)
		return
	}
	switch format {
	case "csv":
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	default:
		w.Header().Set("Content-Type", "application/json")
	}
	w.Header().Set("Content-Disposition", `attachment; filename="hone-session-`+s.ID+`.`+format+`"`)
	bw := flushWriter{Writer: bufio.NewWriterSize(w, 64<<10), w: w}
	if format == "csv" {
		err = tuning.WriteCSV(ctx, bw, engine.Store(), s, engine.AppName())
	} else {
		err = tuning.WriteJSON(ctx, bw, engine.Store(), s, engine.Now())
	}
	if err == nil {
		err = bw.Writer.Flush()
	}
	if err != nil {
		log.ErrorContext(ctx, "export failed part way", "session_id", s.ID, "format", format, "err", err)
	}
}
