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

// UnknownTypeError reports a serialization header (Statistics.db) that
// names a marshal class castable does not know. castable will not guess how
// such values are laid out in Data.db (a fixed length or a length prefix)
// or ordered; ReaderOptions.OpaqueUnknownTypes opts in to reading them as
// opaque length-prefixed bytes. Its message says so; beneath it, for what
// handles every unreadable SSTable alike, it holds a CorruptionError of the
// same file, component and offset (errors.As, errors.Is ErrCorrupt:
// castable cannot read the file as it is, and before na, without
// Statistics.db checksums, a damaged type name and an unknown class look
// alike) and the parser's error (errors.Is schema.ErrUnknownType).
type UnknownTypeError struct {
	// Path is the Statistics.db file.
	Path string
	// Component is "Statistics.db".
	Component string
	// Offset is the byte offset in the file of the type name.
	Offset int64
	// Column says whose type it is: `column "v"`, "clustering column 0",
	// "partition key type" or "covered clustering type 0".
	Column string
	// Class is the unknown class as written, parameters included.
	Class string
	// Err is the parser's error (a wrapped *schema.UnknownTypeError).
	Err error
}

// Error implements error.
func (e *UnknownTypeError) Error() string {
	return fmt.Sprintf("%s: %s at offset %d: serialization header: %s has the type %s, a marshal class castable does not know, so it will not guess how its values are laid out in Data.db (opaque length-prefixed bytes only if asked: ReaderOptions.OpaqueUnknownTypes, castable's --opaque-unknown-types)",
		e.Path, e.Component, e.Offset, e.Column, e.Class)
}

// Unwrap returns the CorruptionError beneath and the parser's error.
func (e *UnknownTypeError) Unwrap() []error {
	return []error{
		&CorruptionError{Path: e.Path, Component: e.Component, Offset: e.Offset,
			Reason: fmt.Sprintf("serialization header: %s has the type %s, a marshal class castable does not know", e.Column, e.Class)},
		e.Err,
	}
}
