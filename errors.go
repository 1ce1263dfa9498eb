package incidentlib

import (
	"errors"
	"fmt"
)

// Sentinel errors shared by the CLI, the API and the MCP server. Each face
// maps them to its own status: see the table in internal/api.
var (
	ErrNotFound     = errors.New("not found")
	ErrInvalid      = errors.New("invalid input")
	ErrConflict     = errors.New("conflict")
	ErrUnauthorized = errors.New("unauthorized")
	ErrUnavailable  = errors.New("unavailable")
)

// Errorf returns an error that wraps kind with a message meant for users.
func Errorf(kind error, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// Error is a user-facing error of a known kind.
type Error struct {
	Kind error
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Unwrap lets errors.Is match the kind.
func (e *Error) Unwrap() error { return e.Kind }
