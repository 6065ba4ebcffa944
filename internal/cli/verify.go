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
}

// Verify checks every chunk checksum, the digest, and that every component
// parses and agrees with the others, for each SSTable. It prints one "OK"
// line per sound SSTable to stdout and one message per damaged one to
// stderr, naming file, component and offset; the error is non-nil when any
// SSTable failed.
func Verify(env *Env, opts VerifyOptions) error {
	descs, err := resolveSSTables(opts.SSTables)
	if err != nil {
		return err
	}
	table, err := loadTable(opts.Schema, opts.Table)
	if err != nil {
		return err
	}
	var total int64
	for _, d := range descs {
		total += fileSize(d.Path(sstables.ComponentData))
	}
	prog := newProgress(env, "verify", total)
	start := time.Now()
	failed := 0
	var firstErr error
	for _, d := range descs {
		if err := verifyOne(d, table); err != nil {
			prog.clear()
			fmt.Fprintf(env.stderr(), "FAILED %s: %v\n", d, err)
			failed++
			if firstErr == nil {
				firstErr = err
			}
		} else {
			prog.clear()
			fmt.Fprintf(env.stdout(), "OK %s\n", d)
		}
		prog.addBytes(fileSize(d.Path(sstables.ComponentData)))
		prog.addSSTables(1)
	}
	prog.finish()
	env.infof("castable verify: %d SSTables, %d sound, %d damaged, %s of Data.db in %s",
		len(descs), len(descs)-failed, failed, humanBytes(total), roundDuration(time.Since(start)))
	if failed > 0 {
		return &reportedError{err: fmt.Errorf("%d of %d SSTables failed verification", failed, len(descs)), first: firstErr}
	}
	return nil
}

func verifyOne(d sstables.Descriptor, table *schema.Table) error {
	r, err := openSSTable(d, table)
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
