package schema

// This file fixes the method set other packages program against. Every body
// here is replaced by the real implementation in the type files.

import "errors"

var errUnimplemented = errors.New("schema: not implemented yet")

// Validate reports whether v is a valid serialized value of t.
func (t *Type) Validate(v []byte) error { return errUnimplemented }

// AppendJSON appends the JSON form of v (json-format.md §1.7) to dst.
func (t *Type) AppendJSON(dst, v []byte) ([]byte, error) { return dst, errUnimplemented }

// FromJSON serializes a value decoded by encoding/json with UseNumber
// (string, json.Number, bool, nil, []any, map[string]any), accepting
// everything json-format.md Part 2 says a loader must.
func (t *Type) FromJSON(v any) ([]byte, error) { return nil, errUnimplemented }

// AppendString appends the string form of v (partition key components and
// cell paths, json-format.md §1.2) to dst.
func (t *Type) AppendString(dst, v []byte) ([]byte, error) { return dst, errUnimplemented }

// FromString parses the string form of a value of t.
func (t *Type) FromString(s string) ([]byte, error) { return nil, errUnimplemented }
