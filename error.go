// Package hone holds what every part of hone shares: the error type with its
// codes, and identifiers. Capabilities live in their own packages under internal/.
package hone

import (
	"errors"
	"fmt"
)

// Error codes. Each maps to one HTTP status and one kind of chat reply.
const (
	EINTERNAL     = "internal"
	EINVALID      = "invalid"
	ENOTFOUND     = "not_found"
	ECONFLICT     = "conflict"
	EUNAUTHORIZED = "unauthorized"
	ETOOLARGE     = "too_large"
	EUNAVAILABLE  = "unavailable"
	EFORBIDDEN    = "forbidden"
	ETIMEOUT      = "timeout"
	ENOTALLOWED   = "method_not_allowed"
	EMEDIATYPE    = "unsupported_media_type"
	ETOOMANY      = "too_many_requests"
)

// Codes lists every error code, in the order the API documents them.
var Codes = []string{EINVALID, EUNAUTHORIZED, EFORBIDDEN, ENOTFOUND, ENOTALLOWED, ETIMEOUT, ECONFLICT, ETOOLARGE, EMEDIATYPE,
	ETOOMANY, EINTERNAL, EUNAVAILABLE}

// Error is an error whose message is safe to show to a user. Field names the
// input that was wrong, when there is one.
type Error struct {
	Code    string
	Field   string
	Message string
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("hone error: code=%s field=%s message=%s", e.Code, e.Field, e.Message)
	}
	return fmt.Sprintf("hone error: code=%s message=%s", e.Code, e.Message)
}

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldError returns an EINVALID *Error naming the bad field.
func FieldError(field, format string, args ...any) *Error {
	return &Error{Code: EINVALID, Field: field, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err's *Error, EINTERNAL for any other error and
// "" for nil.
func ErrorCode(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the user-safe message of err's *Error, or a generic
// message for any other error.
func ErrorMessage(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Message
	}
	return "Internal error."
}

// ErrorField returns the field named by err's *Error, or "".
func ErrorField(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}
