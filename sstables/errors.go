package sstables

import (
	"errors"
	"fmt"
)

// ErrCorrupt is matched (errors.Is) by every CorruptionError.
var ErrCorrupt = errors.New("sstable corrupt")

// CorruptionError reports damaged or unreadable SSTable content: a component
// that is truncated, fails to parse, or fails a checksum. It names the file,
// the component and the byte offset where the problem was found.
type CorruptionError struct {
	// Path is the file that holds the problem.
	Path string
	// Component is the component name, e.g. "Data.db" or "CompressionInfo.db".
	Component string
	// Offset is the byte offset in the component's file (for Data.db of a
	// compressed SSTable: the offset of the chunk in the file) or -1 when
	// the problem has no single position.
	Offset int64
	// Reason says what is wrong.
	Reason string
	// Err is an underlying cause, if any.
	Err error
}

// Error implements error.
func (e *CorruptionError) Error() string {
	msg := fmt.Sprintf("%s: corrupt %s", e.Path, e.Component)
	if e.Offset >= 0 {
		msg += fmt.Sprintf(" at offset %d", e.Offset)
	}
	msg += ": " + e.Reason
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the underlying cause.
func (e *CorruptionError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrCorrupt) true for every CorruptionError.
func (e *CorruptionError) Is(target error) bool { return target == ErrCorrupt }

// Corruptf returns a CorruptionError with a formatted reason.
func Corruptf(path, component string, offset int64, format string, args ...any) *CorruptionError {
	return &CorruptionError{Path: path, Component: component, Offset: offset, Reason: fmt.Sprintf(format, args...)}
}
