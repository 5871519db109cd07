package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"

	"github.com/honehq/hone"
)

// DecodeJSON reads the request's JSON body into v, a pointer to a struct,
// rejecting null, unknown fields, trailing data and bodies over the limit
// with errors that name the problem.
func DecodeJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	// Decoding into a pointer to v's pointer leaves it nil for a null body.
	pp := reflect.New(reflect.TypeOf(v))
	pp.Elem().Set(reflect.ValueOf(v))
	err := dec.Decode(pp.Interface())
	if err == nil && pp.Elem().IsNil() {
		return ErrNull
	}
	if err == nil {
		if dec.More() {
			return hone.Errorf(hone.EINVALID, "the body must hold one JSON value and nothing after it")
		}
		if err = dec.Decode(&struct{}{}); err == io.EOF {
			return nil
		}
		if e := ReadError(err); e != nil {
			return e
		}
		return hone.Errorf(hone.EINVALID, "the body must hold one JSON value and nothing after it")
	}
	return JSONError(err)
}

// ErrNull answers a body, or an item of a batch, that is JSON null.
var ErrNull = hone.Errorf(hone.EINVALID, "the body must be a JSON object, not null")

// ReadError is the error for a failure to read a request body: over the
// size limit, or too slow. It returns nil for any other error.
func ReadError(err error) error {
	var maxErr *http.MaxBytesError
	switch {
	case errors.As(err, &maxErr):
		return hone.Errorf(hone.ETOOLARGE, "the body is larger than the limit of %d bytes", maxErr.Limit)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return hone.Errorf(hone.ETIMEOUT, "the body did not arrive in time")
	}
	return nil
}

// JSONError explains a JSON decoding error of a request body. A *hone.Error
// (from a type's UnmarshalJSON) is returned as it is.
func JSONError(err error) error {
	if e := ReadError(err); e != nil {
		return e
	}
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	var honeErr *hone.Error
	switch {
	case errors.As(err, &honeErr):
		return honeErr
	case errors.Is(err, io.EOF):
		return hone.Errorf(hone.EINVALID, "the body is empty; send a JSON object")
	case errors.As(err, &typeErr) && typeErr.Field == "":
		return hone.Errorf(hone.EINVALID, "the body must be a JSON object, not %s", typeErr.Value)
	case errors.As(err, &typeErr):
		field := typeErr.Field
		return hone.FieldError(field, "%s must be %s, not %s", field, jsonType(typeErr.Type.Kind().String()), typeErr.Value)
	case errors.As(err, &syntaxErr):
		return hone.Errorf(hone.EINVALID, "the body is not valid JSON (at byte %d): %v", syntaxErr.Offset, err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return hone.Errorf(hone.EINVALID, "the body is not valid JSON: it ends too early")
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
