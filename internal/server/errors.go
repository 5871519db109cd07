package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/honehq/hone"
)

// statusOf maps an error code to its HTTP status.
var statusOf = map[string]int{
	hone.EINVALID:      http.StatusBadRequest,
	hone.EUNAUTHORIZED: http.StatusUnauthorized,
	hone.EFORBIDDEN:    http.StatusForbidden,
	hone.ENOTFOUND:     http.StatusNotFound,
	hone.ENOTALLOWED:   http.StatusMethodNotAllowed,
	hone.ETIMEOUT:      http.StatusRequestTimeout,
	hone.ECONFLICT:     http.StatusConflict,
	hone.ETOOLARGE:     http.StatusRequestEntityTooLarge,
	hone.EMEDIATYPE:    http.StatusUnsupportedMediaType,
	hone.ETOOMANY:      http.StatusTooManyRequests,
	hone.EINTERNAL:     http.StatusInternalServerError,
	hone.EUNAVAILABLE:  http.StatusServiceUnavailable,
}

// Status returns the HTTP status for err.
func Status(err error) int {
	if s, ok := statusOf[hone.ErrorCode(err)]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// RetryAfter is how many seconds a client is asked to wait after a 503.
const RetryAfter = 5

// Body writes the body of an error answer whose status and headers are set.
type Body func(w http.ResponseWriter, r *http.Request, status int, err error)

// WriteError answers err: its status, Retry-After when the cause is an
// unavailable database or LLM, then the face's body. Internal errors are
// logged with the request and shown only as a generic message. An error of
// a Download that had started is logged and breaks the connection.
func WriteError(w http.ResponseWriter, r *http.Request, log Logger, err error, body Body) {
	if aborted(err) {
		if log != nil {
			log.ErrorContext(r.Context(), "response failed part way", "method", r.Method, "path", LoggedPath(r), "err", err)
		}
		panic(http.ErrAbortHandler)
	}
	status := Status(err)
	var wait interface{ RetryAfter() int }
	switch {
	case errors.As(err, &wait):
		w.Header().Set("Retry-After", strconv.Itoa(wait.RetryAfter()))
	case status == http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", strconv.Itoa(RetryAfter))
	case status == http.StatusRequestTimeout:
		w.Header().Set("Connection", "close")
	}
	if status >= 500 && log != nil {
		log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", LoggedPath(r), "status", status, "err", err)
	}
	body(w, r, status, err)
}

// ErrorBody is the JSON body of every error response.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail says what went wrong and, for bad input, which field.
type ErrorDetail struct {
	Code    string `json:"code"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
	// Details says more where one error stands for several, such as the
	// invalid lines of an import.
	Details any `json:"details,omitempty"`
	// ErrorsNotListed counts what Details leaves out, where it lists only
	// the first of many.
	ErrorsNotListed int `json:"errors_not_listed,omitempty"`
}

// Detail is the ErrorDetail of err.
func Detail(err error) ErrorDetail {
	d := ErrorDetail{Code: hone.ErrorCode(err), Field: hone.ErrorField(err), Message: hone.ErrorMessage(err)}
	var more interface{ Details() any }
	if errors.As(err, &more) {
		d.Details = more.Details()
	}
	var counted interface{ ErrorsNotListed() int }
	if errors.As(err, &counted) {
		d.ErrorsNotListed = counted.ErrorsNotListed()
	}
	return d
}

// JSONBody writes err as an ErrorBody.
func JSONBody(w http.ResponseWriter, _ *http.Request, status int, err error) {
	if werr := WriteJSON(w, status, ErrorBody{Error: Detail(err)}); werr != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"error":{"code":"internal","message":"Internal error."}}`+"\n")
	}
}

// WriteJSON writes v as JSON with the status, HTML characters unescaped. It
// encodes v whole before it sends anything, so a value JSON cannot hold (a
// NaN, an infinity, a failing marshaller) is returned as an error while the
// status can still change, and the handler returning it answers a logged
// 500 instead of an empty 200.
func WriteJSON(w http.ResponseWriter, status int, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode the %d answer as JSON: %w", status, err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
	return nil
}
