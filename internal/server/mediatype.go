package server

import (
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/honehq/hone"
)

// JSONType is the media type of JSON bodies.
const JSONType = "application/json"

// NDJSONTypes are the media types hone reads as one JSON value per line.
var NDJSONTypes = []string{"application/x-ndjson", "application/jsonl", "application/jsonlines", "application/x-jsonlines"}

// CheckMediaType refuses a request that changes something (any method
// but GET, HEAD and OPTIONS) and carries a body, or names a Content-Type,
// that is not one of the route's media types (rt.Accepts, else JSON). A
// browser sends a page's cross-site request without asking first only with
// a form or text/plain body, so this keeps another site's page from
// changing anything with one, whatever the browser says of the origin.
func CheckMediaType(rt Route, r *http.Request) error {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return nil
	}
	accepts := rt.Accepts
	if accepts == nil {
		accepts = []string{JSONType}
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" && r.ContentLength == 0 {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && slices.Contains(accepts, mt) {
		return nil
	}
	want := strings.Join(accepts, " or ")
	if ct == "" {
		return &hone.Error{Code: hone.EMEDIATYPE, Field: "Content-Type",
			Message: "the request has a body but no Content-Type: send it as " + want + " (with curl: -H 'Content-Type: " + accepts[0] + "')"}
	}
	if len(ct) > 100 {
		ct = ct[:100] + "…"
	}
	return &hone.Error{Code: hone.EMEDIATYPE, Field: "Content-Type",
		Message: fmt.Sprintf("Content-Type %q is not taken here: send the body as %s (with curl: -H 'Content-Type: %s')", ct, want, accepts[0])}
}
