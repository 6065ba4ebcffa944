package export

import "github.com/castable-db/castable/mutation"

// Header returns the merged header of the partition the last row Next
// returned belongs to — its key, deletion and static row as the merge
// left them, tombstones and expired cells included (what Cassandra's
// filters see of a static row) — valid until the next call to Next.
func (v *View) Header() *mutation.Partition { return v.header }
