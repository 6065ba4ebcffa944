package jsondump

import (
	"strconv"
	"strings"
)

// Error reports a problem decoding or encoding one partition. It names
// where: the input offset (decoding), the partition key, the row, the
// column and the JSON field, as far as they are known.
type Error struct {
	// Op is "decode" or "encode".
	Op string
	// Offset is the byte offset in the input just after the value at
	// fault (decoding only; -1 when unknown).
	Offset int64
	// Partition is the partition key in its JSON form, e.g. ["1"].
	Partition string
	// Row is the row's clustering in JSON form, "static", or a marker's
	// description; empty for the partition itself.
	Row string
	// Column is the column name.
	Column string
	// Field is the JSON field, e.g. "tstamp" or "value".
	Field string
	// Err is the cause.
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("jsondump: ")
	b.WriteString(e.Op)
	if e.Offset >= 0 && e.Op == "decode" {
		b.WriteString(" at offset ")
		b.WriteString(strconv.FormatInt(e.Offset, 10))
	}
	if e.Partition != "" {
		b.WriteString(": partition ")
		b.WriteString(e.Partition)
	}
	if e.Row != "" {
		b.WriteString(" row ")
		b.WriteString(e.Row)
	}
	if e.Column != "" {
		b.WriteString(" column ")
		b.WriteString(e.Column)
	}
	if e.Field != "" {
		b.WriteString(" field ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }
