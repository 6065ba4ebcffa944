// Package cli holds the bodies of the castable commands: write, dump,
// verify, metadata, layout, convert, scrub, and compact, filter and split
// over a set of SSTables. Each command is a function taking
// its options as a struct and an Env holding the standard streams, so tests
// call the commands directly with buffers; cmd/castable only wires flags.
//
// Every command writes data — and nothing else — to Env.Stdout; messages,
// progress bars and summaries go to Env.Stderr. Errors are classified for
// the process exit status by ExitCode: a UsageError (bad flags or
// arguments) exits 2, anything else (corrupt SSTables, a schema that does
// not match the data, unreadable input) exits 1.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/castable-db/castable/bulk"
	"golang.org/x/term"
)

// Exit statuses of the castable command.
const (
	// ExitOK means the command did what was asked.
	ExitOK = 0
	// ExitData means a data problem: corruption, a checksum or digest
	// mismatch, input that does not match the schema, an I/O failure.
	ExitData = 1
	// ExitUsage means the command line was wrong.
	ExitUsage = 2
)

// Env is what a command talks to: its standard streams. The zero value of a
// field means the process's own stream (os.Stdin, os.Stdout, os.Stderr).
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Quiet silences progress bars and the closing summary line.
	Quiet bool
}

func (e *Env) stdin() io.Reader {
	if e == nil || e.Stdin == nil {
		return os.Stdin
	}
	return e.Stdin
}

func (e *Env) stdout() io.Writer {
	if e == nil || e.Stdout == nil {
		return os.Stdout
	}
	return e.Stdout
}

func (e *Env) stderr() io.Writer {
	if e == nil || e.Stderr == nil {
		return os.Stderr
	}
	return e.Stderr
}

// stderrTerminal reports whether progress may be drawn: stderr is a
// terminal and the command is not quiet.
func (e *Env) stderrTerminal() bool {
	if e != nil && e.Quiet {
		return false
	}
	f, ok := e.stderr().(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// infof writes a message line to stderr unless quiet.
func (e *Env) infof(format string, args ...any) {
	if e != nil && e.Quiet {
		return
	}
	fmt.Fprintf(e.stderr(), format+"\n", args...)
}

// UsageError reports a wrong command line: an unknown or conflicting flag,
// a missing argument, a value that does not parse.
type UsageError struct{ Msg string }

// Error implements error.
func (e *UsageError) Error() string { return e.Msg }

// Usagef returns a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// ExitCode maps a command's error to the process exit status: ExitOK for
// nil, ExitUsage for a UsageError or a bulk.OptionError, ExitData for
// anything else.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var u *UsageError
	var o *bulk.OptionError
	if errors.As(err, &u) || errors.As(err, &o) {
		return ExitUsage
	}
	return ExitData
}

// reportedError is a failure whose details were already printed to stderr
// (one line per damaged SSTable); its message is the count only. Unwrap
// gives the first detailed error.
type reportedError struct {
	err   error
	first error
}

func (e *reportedError) Error() string { return e.err.Error() }
func (e *reportedError) Unwrap() error { return e.first }
