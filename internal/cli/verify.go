package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// VerifyOptions configure Verify.
type VerifyOptions struct {
	// SSTables are the SSTables to verify (component paths, prefixes, or
	// directories standing for every SSTable in them).
	SSTables []string
	// Schema and Table optionally give the table (otherwise mc recovers it
	// from its serialization header and la reads values as blobs).
	Schema, Table string
	// Strict fails an SSTable that has warnings (what the databases read
	// although it is odd: see sstables.Warning) as if it were damaged.
	Strict bool
	// OpaqueUnknownTypes reads a column whose type is a marshal class
	// castable does not know (in the serialization header or a --schema
	// custom type) as opaque length-prefixed bytes, printed as hex, instead
	// of failing (sstables.ReaderOptions.OpaqueUnknownTypes).
	OpaqueUnknownTypes bool
}

// Verify checks every chunk checksum, the digest, and that every component
// parses and agrees with the others, for each SSTable. It prints one "OK"
// line per sound SSTable to stdout and one message per damaged one to
// stderr, naming file, component and offset; before it, one "WARN file:
// component: what" line on stderr for each oddity the SSTable has that the
// databases read anyway (sstables.Warning), which fail the SSTable only
// with opts.Strict. The error is non-nil when any SSTable failed.
func Verify(env *Env, opts VerifyOptions) error {
	descs, err := resolveSSTables(opts.SSTables)
	if err != nil {
		return err
	}
	table, err := loadTableTypes(opts.Schema, opts.Table, opts.OpaqueUnknownTypes)
	if err != nil {
		return err
	}
	var total int64
	for _, d := range descs {
		total += fileSize(d.Path(sstables.ComponentData))
	}
	prog := newProgress(env, "verify", total)
	start := time.Now()
	failed, warnedTotal, strictFailed := 0, 0, 0
	var firstErr error
	for _, d := range descs {
		var warnings sstables.WarningList
		err := verifyOne(d, table, warnings.Add, opts.OpaqueUnknownTypes)
		prog.clear()
		for _, w := range warnings.Warnings() {
			fmt.Fprintln(env.stderr(), warnPrefix+w.String())
		}
		if n := warnings.Len(); n > 0 {
			warnedTotal++
			if err == nil && opts.Strict {
				err = &StrictError{SSTable: d.String(), Warnings: warnings.Warnings()}
				strictFailed++
			}
		}
		if err != nil {
			fmt.Fprintf(env.stderr(), "FAILED %s: %v\n", d, err)
			failed++
			if firstErr == nil {
				firstErr = err
			}
		} else {
			fmt.Fprintf(env.stdout(), "OK %s\n", d)
		}
		prog.addBytes(fileSize(d.Path(sstables.ComponentData)))
		prog.addSSTables(1)
	}
	prog.finish()
	strict := ""
	if strictFailed > 0 {
		strict = fmt.Sprintf(" (%d failed only for them: --strict)", strictFailed)
	}
	env.infof("castable verify: %d SSTables, %d sound, %d damaged, %d with warnings%s, %s of Data.db in %s",
		len(descs), len(descs)-failed, failed-strictFailed, warnedTotal, strict, humanBytes(total), roundDuration(time.Since(start)))
	if failed > 0 {
		return &reportedError{err: fmt.Errorf("%d of %d SSTables failed verification", failed, len(descs)), first: firstErr}
	}
	return nil
}

// StrictError fails an SSTable that verified with warnings under
// VerifyOptions.Strict.
type StrictError struct {
	SSTable  string
	Warnings []sstables.Warning
}

// Error implements error.
func (e *StrictError) Error() string {
	return fmt.Sprintf("%d warnings (--strict makes them failures); the first: %s", len(e.Warnings), e.Warnings[0])
}

func verifyOne(d sstables.Descriptor, table *schema.Table, warn sstables.WarnFunc, opaque bool) error {
	r, err := openSSTableWarn(d, table, warn, opaque)
	if err != nil {
		return err
	}
	defer r.Close()
	return r.Verify()
}

// fileSize returns the size of path, 0 when it cannot be read.
func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}
