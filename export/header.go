package export

import "github.com/castable-db/castable/mutation"

// Header returns the merged header of the partition the last row Next
// returned belongs to — its key, deletion and static row as the merge
// left them, tombstones and expired cells included (what Cassandra's
// filters see of a static row) — valid until the next call to Next.
func (v *View) Header() *mutation.Partition { return v.header }

// SkipPartition drops the rest of the partition of the last row Next
// returned: the next call starts the next partition (without the
// static-only row a partition with no live row shows). A caller that knows
// no further row of the partition can interest it (past a clustering
// slice's end) saves reading them.
func (v *View) SkipPartition() { v.part = nil }
