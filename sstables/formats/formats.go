// Package formats links every SSTable format castable has into the
// sstables registry: import it (for its side effect) and sstables.Lookup
// finds any version.
package formats

import (
	_ "github.com/castable-db/castable/sstables/big" // ma … oa
	_ "github.com/castable-db/castable/sstables/la"  // ka, la, lb
)
