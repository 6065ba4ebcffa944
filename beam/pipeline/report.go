package pipeline

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteReport prints sum for people: one line per writer (directory, rows,
// partitions, SSTables, bytes, the Beam counters when there are any) and
// the totals.
func WriteReport(w io.Writer, sum *Summary) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-24s %12s %12s %9s %14s\n", "writer", "rows", "partitions", "sstables", "bytes")
	for _, ws := range sum.Writers {
		name := ws.Dir
		if ws.Slice != "" {
			name = fmt.Sprintf("%s#%d", ws.Dir, ws.Index)
		}
		fmt.Fprintf(&b, "%-24s %12d %12d %9d %14d\n", name, ws.Rows, ws.Partitions, len(ws.SSTables), ws.Bytes)
	}
	fmt.Fprintf(&b, "%-24s %12d %12d %9d %14d\n", "total", sum.Rows, sum.Partitions, sum.SSTables, sum.Bytes)
	if n := len(sum.Counters); n > 0 {
		var names []string
		for k := range sum.Counters {
			if !strings.Contains(k, "/") {
				names = append(names, k)
			}
		}
		sort.Strings(names)
		var parts []string
		for _, k := range names {
			parts = append(parts, fmt.Sprintf("%s=%d", k, sum.Counters[k]))
		}
		fmt.Fprintf(&b, "counters: %s\n", strings.Join(parts, " "))
	}
	fmt.Fprintf(&b, "format %s, %s; summary in %s\n", sum.Format, sum.Partitioner, joinPath(sum.Out, SummaryFile))
	_, err := io.WriteString(w, b.String())
	return err
}
