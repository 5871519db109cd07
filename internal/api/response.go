package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/honehq/hone"
)

var errUnauthorized = hone.Errorf(hone.EUNAUTHORIZED, "a valid Bearer token is required (HONE_API_TOKEN)")

func notFoundRoute(r *http.Request) error {
	return hone.Errorf(hone.ENOTFOUND, "no API endpoint %s %s", r.Method, r.URL.Path)
}

// statusOf maps an error code to its HTTP status.
var statusOf = map[string]int{
	hone.EINVALID:      http.StatusBadRequest,
	hone.ENOTFOUND:     http.StatusNotFound,
	hone.ECONFLICT:     http.StatusConflict,
	hone.EUNAUTHORIZED: http.StatusUnauthorized,
	hone.ETOOLARGE:     http.StatusRequestEntityTooLarge,
	hone.EUNAVAILABLE:  http.StatusServiceUnavailable,
	hone.EINTERNAL:     http.StatusInternalServerError,
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
}

// Status returns the HTTP status for err.
func Status(err error) int {
	if s, ok := statusOf[hone.ErrorCode(err)]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// writeError writes err as JSON with its status; internal errors are logged
// and shown only as a generic message.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	code := hone.ErrorCode(err)
	if code == hone.EINTERNAL {
		log.ErrorContext(r.Context(), "api request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeJSON(w, Status(err), ErrorBody{Error: ErrorDetail{Code: code, Field: hone.ErrorField(err), Message: hone.ErrorMessage(err)}})
}

// WriteError is writeError for routes added by other packages.
func (a *API) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	writeError(w, r, a.Logger, err)
}

// WriteJSON writes v as JSON with the status.
func (a *API) WriteJSON(w http.ResponseWriter, status int, v any) { writeJSON(w, status, v) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// Decode reads the request's JSON body into v, rejecting unknown fields,
// trailing data and bodies over the limit with errors that name the problem.
func (a *API) Decode(r *http.Request, v any) error { return decode(r, v) }

func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if dec.More() || dec.Decode(&struct{}{}) != io.EOF {
			return hone.Errorf(hone.EINVALID, "the body must hold one JSON object and nothing after it")
		}
		return nil
	}
	var maxErr *http.MaxBytesError
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &maxErr):
		return hone.Errorf(hone.ETOOLARGE, "the body is larger than the limit of %d bytes", maxErr.Limit)
	case errors.Is(err, io.EOF):
		return hone.Errorf(hone.EINVALID, "the body is empty; send a JSON object")
	case errors.As(err, &typeErr) && typeErr.Field == "":
		return hone.Errorf(hone.EINVALID, "the body must be a JSON object, not %s", typeErr.Value)
	case errors.As(err, &typeErr):
		field := typeErr.Field
		return hone.FieldError(field, "%s must be %s, not %s", field, jsonType(typeErr.Type.Kind().String()), typeErr.Value)
	case errors.As(err, &syntaxErr):
		return hone.Errorf(hone.EINVALID, "the body is not valid JSON (at byte %d): %v", syntaxErr.Offset, err)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return hone.FieldError(field, "unknown field %q", field)
	}
	return hone.Errorf(hone.EINVALID, "the body is not valid JSON: %v", err)
}

func jsonType(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "float64", "float32", "int", "int64":
		return "a number"
	case "bool":
		return "true or false"
	case "map", "struct":
		return "an object"
	case "slice":
		return "an array"
	}
	return fmt.Sprintf("a %s", kind)
}
