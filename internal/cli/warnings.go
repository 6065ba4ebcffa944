package cli

import (
	"fmt"
	"sync"

	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// warnPrefix starts every warning line on stderr.
const warnPrefix = "WARN "

// warnPrinter returns a WarnFunc that prints each distinct warning once to
// env's stderr as "WARN file: component: what", whatever --quiet says (a
// warning is not a progress message: it is about the data).
func warnPrinter(env *Env) sstables.WarnFunc {
	var mu sync.Mutex
	seen := map[sstables.Warning]bool{}
	return func(w sstables.Warning) {
		mu.Lock()
		defer mu.Unlock()
		if seen[w] {
			return
		}
		seen[w] = true
		fmt.Fprintln(env.stderr(), warnPrefix+w.String())
	}
}

// openSSTableWarn is openSSTable that reports what the reader tolerates to
// warn.
func openSSTableWarn(desc sstables.Descriptor, table *schema.Table, warn sstables.WarnFunc, opaque bool) (sstables.Reader, error) {
	return sstables.OpenAny(desc, table, sstables.ReaderOptions{ReadAhead: scanReadAhead, Warn: warn, OpaqueUnknownTypes: opaque})
}
