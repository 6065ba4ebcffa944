package reliability

import (
	"errors"
	"fmt"
	"strings"

	"github.com/castable-db/castable/sstables"
)

// Verdict is how a damaged SSTable was handled.
type Verdict uint8

// The verdicts, from good to bad.
const (
	// Caught: a CorruptionError naming the file and component, from Open,
	// the scan, a lookup or Verify (and Verify reported it whenever reading
	// did).
	Caught Verdict = iota
	// Tolerated: damage that leaves a valid SSTable which loses nothing: a
	// truncation listed by toleratedTruncations, or a flip of a
	// deliberately corrupt SSTable that undoes its planted corruption.
	Tolerated
	// Undetectable: a flip no check of the format can see (a component
	// Cassandra does not checksum, in a field nothing cross-checks); what
	// is read is unchanged.
	Undetectable
	// UndetectableChanged: as Undetectable, but what the scan and the
	// lookups return differs from the undamaged SSTable (e.g. Statistics.db
	// minima the 3.x rows are delta-encoded against).
	UndetectableChanged
	// Failed: a panic, a hang, too much memory, an error that is not a
	// CorruptionError, a truncation or Data.db flip nobody noticed, or
	// Verify passing what reading rejected.
	Failed
)

func (v Verdict) String() string {
	return [...]string{"caught", "tolerated", "undetectable", "undetectable (content changed)", "FAILED"}[v]
}

// CLIProbe is what the castable dump and verify commands gave.
type CLIProbe struct {
	Dump, Verify error
}

// Outcome is the result of one damaged SSTable.
type Outcome struct {
	Target  *Target
	Damage  Damage
	Lib     Guarded[Probe]
	CLI     Guarded[CLIProbe]
	CLIRan  bool
	Verdict Verdict
	// Problem explains a Failed verdict.
	Problem string
}

// Name identifies the case.
func (o *Outcome) Name() string { return o.Target.Name + ": " + o.Damage.String() }

// judge sets o.Verdict and o.Problem.
func judge(o *Outcome, maxAlloc uint64) {
	fail := func(format string, args ...any) {
		o.Verdict = Failed
		o.Problem = fmt.Sprintf(format, args...)
	}
	lib := &o.Lib
	switch {
	case lib.Panic != "":
		fail("library panic: %s", lib.Panic)
		return
	case lib.Hung:
		fail("library read did not return (hang)")
		return
	case lib.Alloc > maxAlloc:
		fail("library read allocated %d MiB (bound %d MiB)", lib.Alloc>>20, maxAlloc>>20)
		return
	}
	if o.CLIRan {
		switch {
		case o.CLI.Panic != "":
			fail("CLI panic: %s", o.CLI.Panic)
			return
		case o.CLI.Hung:
			fail("CLI did not return (hang)")
			return
		case o.CLI.Alloc > maxAlloc:
			fail("CLI allocated %d MiB (bound %d MiB)", o.CLI.Alloc>>20, maxAlloc>>20)
			return
		}
	}
	p := &lib.Result
	stages := []struct {
		name string
		err  error
	}{{"Open", p.Open}, {"Scan", p.Scan}, {"Get", p.Get}, {"Verify", p.Verify}}
	if o.CLIRan {
		stages = append(stages, struct {
			name string
			err  error
		}{"castable dump", o.CLI.Result.Dump}, struct {
			name string
			err  error
		}{"castable verify", o.CLI.Result.Verify})
	}
	for _, s := range stages {
		if s.err == nil {
			continue
		}
		if msg := checkCorruption(o.Target, s.err); msg != "" {
			fail("%s: %s", s.name, msg)
			return
		}
	}
	if p.Open == nil && p.Verify == nil && (p.Scan != nil || p.Get != nil) {
		fail("Verify passes what reading rejects: %v", p.ReadError())
		return
	}
	if o.CLIRan && !o.Target.Format.Version().LegacyCells() {
		libBad := p.Open != nil || p.Verify != nil
		if cliBad := o.CLI.Result.Verify != nil; libBad != cliBad {
			fail("castable verify (error %v) disagrees with Reader.Verify (error %v)", o.CLI.Result.Verify, p.FirstError())
			return
		}
	}
	if p.FirstError() != nil {
		o.Verdict = Caught
		return
	}
	switch {
	case o.Target.DeliberatelyCorrupt && o.Damage.Kind == Flip && o.Target.Baseline.FirstError() != nil:
		// The planted damage was a flip of this very byte: undone.
		o.Verdict = Tolerated
	case o.Damage.Kind == Truncate && o.Target.tolerated[o.Damage.Component][o.Damage.Offset]:
		if p.Fingerprint != o.Target.Baseline.Fingerprint {
			fail("tolerated truncation changed what is read")
			return
		}
		o.Verdict = Tolerated
	case o.Damage.Kind == Truncate:
		fail("truncation went unnoticed")
	case o.Damage.Component == sstables.ComponentData:
		fail("flipped Data.db byte went unnoticed")
	case p.Fingerprint != o.Target.Baseline.Fingerprint:
		o.Verdict = UndetectableChanged
	default:
		o.Verdict = Undetectable
	}
}

// checkCorruption returns what is wrong with err as the report of damage
// to t ("" when it is a proper CorruptionError).
func checkCorruption(t *Target, err error) string {
	if !errors.Is(err, sstables.ErrCorrupt) {
		return fmt.Sprintf("error is not a CorruptionError: %v", err)
	}
	ce := corruptionOf(err)
	if ce == nil {
		return fmt.Sprintf("error matches ErrCorrupt but holds no CorruptionError: %v", err)
	}
	if ce.Path == "" || ce.Component == "" {
		return fmt.Sprintf("CorruptionError without file or component: %v", err)
	}
	if !strings.HasSuffix(ce.Path, "-"+ce.Component) {
		return fmt.Sprintf("CorruptionError names file %s but component %s: %v", ce.Path, ce.Component, err)
	}
	if _, ok := t.Files[sstables.Component(ce.Component)]; !ok {
		return fmt.Sprintf("CorruptionError names component %s, which the SSTable does not have: %v", ce.Component, err)
	}
	return ""
}
