package otlp

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/auth"
	"github.com/honehq/hone/internal/server"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// The paths of the OTLP/HTTP face.
const (
	TracesPath = "/v1/traces"
	LogsPath   = "/v1/logs"
)

// The content types of OTLP/HTTP.
const (
	contentProtobuf = "application/x-protobuf"
	contentJSON     = "application/json"
)

// DefaultMaxBodyBytes bounds an export's body, decompressed, when
// FaceOptions do not.
const DefaultMaxBodyBytes = 16 << 20

// gRPC status codes OTLP/HTTP answers with in its Status bodies.
const (
	codeInvalidArgument   = 3
	codePermissionDenied  = 7
	codeResourceExhausted = 8
	codeUnavailable       = 14
	codeUnauthenticated   = 16
)

// FaceOptions are what the OTLP/HTTP face needs.
type FaceOptions struct {
	Receiver *Receiver
	// Auth requires the API token as a Bearer token when one is set, and
	// slows down guessing it; nil lets everyone in.
	Auth *auth.Auth
	// Hosts, when not nil, are the only hosts the face answers to.
	Hosts *server.Hosts
	// MaxBodyBytes bounds a body, decompressed; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	Log          *slog.Logger
}

// Handler serves OTLP/HTTP exports at POST /v1/traces and POST /v1/logs:
// binary protobuf (application/x-protobuf) or JSON (application/json),
// gzip-compressed or not. The answer is the export response in the
// request's encoding, with partial_success telling how many spans or log
// records were rejected and why; a request that cannot be read is answered
// 400, 413 or 415 with a Status, and one hone cannot record now 503, for
// the exporter to retry.
func Handler(o FaceOptions) http.Handler {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	mux := http.NewServeMux()
	mux.Handle("POST "+TracesPath, o.serve(func(ctx context.Context, body []byte, json bool) ([]byte, error) {
		req := ptraceotlp.NewExportRequest()
		if err := unmarshal(req, body, json); err != nil {
			return nil, err
		}
		out, err := o.Receiver.Traces(ctx, req.Traces())
		if err != nil {
			return nil, err
		}
		resp := ptraceotlp.NewExportResponse()
		if out.Rejected > 0 {
			resp.PartialSuccess().SetRejectedSpans(int64(out.Rejected))
			resp.PartialSuccess().SetErrorMessage(out.Message)
		}
		return marshal(resp, json)
	}))
	mux.Handle("POST "+LogsPath, o.serve(func(ctx context.Context, body []byte, json bool) ([]byte, error) {
		req := plogotlp.NewExportRequest()
		if err := unmarshal(req, body, json); err != nil {
			return nil, err
		}
		out, err := o.Receiver.Logs(ctx, req.Logs())
		if err != nil {
			return nil, err
		}
		resp := plogotlp.NewExportResponse()
		if out.Rejected > 0 {
			resp.PartialSuccess().SetRejectedLogRecords(int64(out.Rejected))
			resp.PartialSuccess().SetErrorMessage(out.Message)
		}
		return marshal(resp, json)
	}))
	return mux
}

// codec is what the OTLP request and response types of pdata share.
type codec interface {
	MarshalProto() ([]byte, error)
	UnmarshalProto([]byte) error
	MarshalJSON() ([]byte, error)
	UnmarshalJSON([]byte) error
}

// errUndecodable is the error of a body that is not an export request.
type errUndecodable struct{ err error }

func (e errUndecodable) Error() string { return e.err.Error() }

func unmarshal(c codec, body []byte, json bool) error {
	var err error
	if json {
		err = c.UnmarshalJSON(body)
	} else {
		err = c.UnmarshalProto(body)
	}
	if err != nil {
		return errUndecodable{err}
	}
	return nil
}

func marshal(c codec, json bool) ([]byte, error) {
	if json {
		return c.MarshalJSON()
	}
	return c.MarshalProto()
}

// serve is one export endpoint: it checks the token, reads and
// decompresses the body, and answers with what handle returns, or the
// Status of its error.
func (o FaceOptions) serve(handle func(ctx context.Context, body []byte, json bool) ([]byte, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		json := mt == contentJSON
		if err != nil || (mt != contentProtobuf && !json) {
			o.fail(w, false, http.StatusUnsupportedMediaType, codeInvalidArgument,
				"Content-Type must be application/x-protobuf or application/json")
			return
		}
		if !o.Hosts.Allow(r.Host) {
			o.fail(w, json, http.StatusForbidden, codePermissionDenied, "hone does not answer to the host "+r.Host+
				": without HONE_API_TOKEN it answers only to localhost, the addresses it listens on and the host of HONE_PUBLIC_URL")
			return
		}
		if !o.authorized(w, r, json) {
			return
		}
		body, status, msg := o.read(r)
		if status != 0 {
			o.fail(w, json, status, codeInvalidArgument, msg)
			return
		}
		out, err := handle(r.Context(), body, json)
		var bad errUndecodable
		switch {
		case errors.As(err, &bad):
			o.fail(w, json, http.StatusBadRequest, codeInvalidArgument, "the body is not an OTLP export request: "+bad.Error())
			return
		case err != nil:
			o.Log.Warn("OTLP export not recorded", "path", r.URL.Path, "err", err)
			w.Header().Set("Retry-After", "5")
			o.fail(w, json, http.StatusServiceUnavailable, codeUnavailable, "hone cannot record now: "+hone.ErrorMessage(err))
			return
		}
		w.Header().Set("Content-Type", contentType(json))
		_, _ = w.Write(out)
	})
}

// authorized requires the API token, when one is set, as a Bearer token
// compared in constant time; an address that presents a wrong one too
// often must wait, as on the API.
func (o FaceOptions) authorized(w http.ResponseWriter, r *http.Request, json bool) bool {
	a := o.Auth
	if a == nil || !a.Enabled() {
		return true
	}
	got, hasToken := server.BearerToken(r.Header.Get("Authorization"))
	if hasToken {
		if err := a.Attempts.Check(r); err != nil {
			o.fail(w, json, http.StatusTooManyRequests, codeResourceExhausted, hone.ErrorMessage(err))
			return false
		}
	}
	if hasToken && a.CheckToken(got) {
		return true
	}
	if hasToken {
		a.Attempts.Fail(r.Context(), r, "API token (OTLP)")
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="hone"`)
	o.fail(w, json, http.StatusUnauthorized, codeUnauthenticated, "a valid Bearer token is required to export to hone (HONE_API_TOKEN)")
	return false
}

// read reads r's body, decompressed, within the bound; a status and
// message when it cannot.
func (o FaceOptions) read(r *http.Request) ([]byte, int, string) {
	var src io.Reader = http.MaxBytesReader(nil, r.Body, o.MaxBodyBytes)
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(src)
		if err != nil {
			return nil, http.StatusBadRequest, "the body is not gzip: " + err.Error()
		}
		defer zr.Close()
		src = zr
	default:
		return nil, http.StatusUnsupportedMediaType, "Content-Encoding must be gzip or none, not " + enc
	}
	body, err := io.ReadAll(io.LimitReader(src, o.MaxBodyBytes+1))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig) || int64(len(body)) > o.MaxBodyBytes:
		return nil, http.StatusRequestEntityTooLarge, "the body is larger than hone takes"
	case err != nil:
		return nil, http.StatusBadRequest, "the body cannot be read: " + err.Error()
	}
	return body, 0, ""
}

func contentType(json bool) string {
	if json {
		return contentJSON
	}
	return contentProtobuf
}

// fail answers with status and a google.rpc.Status of code and msg in the
// request's encoding, as OTLP/HTTP does.
func (o FaceOptions) fail(w http.ResponseWriter, json bool, httpStatus int, code int32, msg string) {
	st := &status.Status{Code: code, Message: msg}
	var b []byte
	if json {
		b, _ = protojson.Marshal(st)
	} else {
		b, _ = proto.Marshal(st)
	}
	w.Header().Set("Content-Type", contentType(json))
	w.WriteHeader(httpStatus)
	_, _ = w.Write(b)
}
