package sstables

import (
	"fmt"
	"sync"
)

// Warning is something odd about an SSTable that castable reads anyway,
// because the database whose version it is reads it too: Statistics.db
// components listed out of order, a component TOC.txt lists that is gone
// (Cassandra rebuilds Summary.db and Filter.db at open), CRC.db checksums
// beyond the last chunk, and so on (the README's tolerance table lists
// them all, with the reference behaviour each follows). Damage that no
// database would read is a CorruptionError, never a Warning.
type Warning struct {
	// Path is the file the warning is about.
	Path string
	// Component is the component name ("Statistics.db").
	Component string
	// Offset is the byte offset in the file, or -1 when the oddity has no
	// single position.
	Offset int64
	// Reason says what is odd and who reads it anyway.
	Reason string
}

// String returns "file: component[ at offset N]: reason", the form
// castable verify prints after "WARN ".
func (w Warning) String() string {
	s := w.Path + ": " + w.Component
	if w.Offset >= 0 {
		s += fmt.Sprintf(" at offset %d", w.Offset)
	}
	return s + ": " + w.Reason
}

// Warnf returns a Warning with a formatted reason.
func Warnf(path string, c Component, offset int64, format string, args ...any) Warning {
	return Warning{Path: path, Component: string(c), Offset: offset, Reason: fmt.Sprintf(format, args...)}
}

// WarnFunc receives the warnings of a reader or of VerifySSTable. A nil
// WarnFunc drops them.
type WarnFunc func(Warning)

// Warn calls f with w when f is not nil.
func (f WarnFunc) Warn(w Warning) {
	if f != nil {
		f(w)
	}
}

// Warnf is Warn of a formatted Warning.
func (f WarnFunc) Warnf(path string, c Component, offset int64, format string, args ...any) {
	if f != nil {
		f(Warnf(path, c, offset, format, args...))
	}
}

// WarningList collects warnings in the order they come, dropping repeats
// (a reader's open and its Verify may both notice the same oddity). The
// zero value is ready; it is safe for concurrent use.
type WarningList struct {
	mu   sync.Mutex
	list []Warning
	seen map[Warning]bool
}

// Add records w unless an equal warning was recorded before.
func (l *WarningList) Add(w Warning) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen[w] {
		return
	}
	if l.seen == nil {
		l.seen = map[Warning]bool{}
	}
	l.seen[w] = true
	l.list = append(l.list, w)
}

// Func returns l.Add as a WarnFunc.
func (l *WarningList) Func() WarnFunc { return l.Add }

// Warnings returns what was recorded, in order.
func (l *WarningList) Warnings() []Warning {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Warning(nil), l.list...)
}

// Len returns the number of warnings recorded.
func (l *WarningList) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.list)
}
