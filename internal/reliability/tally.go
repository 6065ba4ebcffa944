package reliability

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// Counts are the tallies of one (group, component) cell of the table.
type Counts struct {
	Files map[string]bool
	// Truncations and flips tried, per verdict.
	Truncations [Failed + 1]int
	Flips       [Failed + 1]int
	// WithOffset counts caught cases whose first CorruptionError carries a
	// byte offset (the rest have Offset -1: a whole-file check such as the
	// digest, or a count that disagrees).
	WithOffset, CaughtTotal int
	// Panics and Hangs are included in the Failed verdicts.
	Panics, Hangs int
	// CLIRuns counts the cases also run through castable dump and verify.
	CLIRuns int
	// Undetected are examples of the undetectable flips (at most
	// maxExamples), to explain them.
	Undetected []string
}

// maxExamples bounds Counts.Undetected.
const maxExamples = 12

// Tried returns the number of truncations and flips tried.
func (c *Counts) Tried() (truncations, flips int) {
	for v := range c.Truncations {
		truncations += c.Truncations[v]
		flips += c.Flips[v]
	}
	return
}

// Tally accumulates outcomes per group (version, compression) and
// component. It is safe for concurrent use.
type Tally struct {
	mu     sync.Mutex
	cells  map[string]map[sstables.Component]*Counts
	failed []*Outcome
	// KeepFailures bounds the failed outcomes kept for the report.
	KeepFailures int
}

// NewTally returns an empty tally.
func NewTally() *Tally {
	return &Tally{cells: map[string]map[sstables.Component]*Counts{}, KeepFailures: 100000}
}

// Add records o.
func (t *Tally) Add(o *Outcome) {
	t.mu.Lock()
	defer t.mu.Unlock()
	g := o.Target.Group()
	if t.cells[g] == nil {
		t.cells[g] = map[sstables.Component]*Counts{}
	}
	c := t.cells[g][o.Damage.Component]
	if c == nil {
		c = &Counts{Files: map[string]bool{}}
		t.cells[g][o.Damage.Component] = c
	}
	c.Files[o.Target.Name] = true
	if o.Damage.Kind == Truncate {
		c.Truncations[o.Verdict]++
	} else {
		c.Flips[o.Verdict]++
	}
	if o.Verdict == Caught {
		c.CaughtTotal++
		if ce := corruptionOf(o.Lib.Result.FirstError()); ce != nil && ce.Offset >= 0 {
			c.WithOffset++
		}
	}
	if o.Lib.Panic != "" || o.CLI.Panic != "" {
		c.Panics++
	}
	if o.Lib.Hung || o.CLI.Hung {
		c.Hangs++
	}
	if o.CLIRan {
		c.CLIRuns++
	}
	if (o.Verdict == Undetectable || o.Verdict == UndetectableChanged) && len(c.Undetected) < maxExamples {
		c.Undetected = append(c.Undetected, o.Target.Name+": "+o.Damage.String()+" ("+o.Verdict.String()+")")
	}
	if o.Verdict == Failed && len(t.failed) < t.KeepFailures {
		t.failed = append(t.failed, o)
	}
}

// Failures returns the failed outcomes kept (at most KeepFailures).
func (t *Tally) Failures() []*Outcome {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.failed)
}

// Component returns the sum over every group of component c's cells.
func (t *Tally) Component(c sstables.Component) Counts {
	t.mu.Lock()
	defer t.mu.Unlock()
	sum := Counts{Files: map[string]bool{}}
	for _, comps := range t.cells {
		if x, ok := comps[c]; ok {
			for f := range x.Files {
				sum.Files[f] = true
			}
			for v := range x.Truncations {
				sum.Truncations[v] += x.Truncations[v]
				sum.Flips[v] += x.Flips[v]
			}
			sum.CaughtTotal += x.CaughtTotal
		}
	}
	return sum
}

// Total returns the sum over every cell.
func (t *Tally) Total() Counts {
	t.mu.Lock()
	defer t.mu.Unlock()
	sum := Counts{Files: map[string]bool{}}
	for _, comps := range t.cells {
		for _, c := range comps {
			for f := range c.Files {
				sum.Files[f] = true
			}
			for v := range c.Truncations {
				sum.Truncations[v] += c.Truncations[v]
				sum.Flips[v] += c.Flips[v]
			}
			sum.WithOffset += c.WithOffset
			sum.CaughtTotal += c.CaughtTotal
			sum.Panics += c.Panics
			sum.Hangs += c.Hangs
			sum.CLIRuns += c.CLIRuns
		}
	}
	return sum
}

// componentOrder is the row order of the table.
var componentOrder = []sstables.Component{
	sstables.ComponentData, sstables.ComponentCompressionInfo, sstables.ComponentCRC,
	sstables.ComponentDigestCRC32, sstables.ComponentDigestAdler32, sstables.ComponentDigestSHA1,
	sstables.ComponentIndex, sstables.ComponentSummary, sstables.ComponentPartitions, sstables.ComponentRows,
	sstables.ComponentFilter, sstables.ComponentStatistics, sstables.ComponentTOC,
}

// WriteMarkdown writes one Markdown table per group.
func (t *Tally) WriteMarkdown(w io.Writer) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	groups := make([]string, 0, len(t.cells))
	for g := range t.cells {
		groups = append(groups, g)
	}
	slices.SortFunc(groups, compareGroups)
	var b strings.Builder
	for _, g := range groups {
		fmt.Fprintf(&b, "**%s**\n\n", g)
		b.WriteString("| component | files | truncations tried | caught | warned | valid, nothing lost | flips tried | caught | warned | valid, nothing lost | undetectable by format | of which content changed | failed (panic, hang, missed) |\n")
		b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		comps := t.cells[g]
		order := slices.Clone(componentOrder)
		for c := range comps {
			if !slices.Contains(order, c) {
				order = append(order, c)
			}
		}
		for _, c := range order {
			n := comps[c]
			if n == nil {
				continue
			}
			tr, fl := n.Tried()
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", c, len(n.Files),
				tr, n.Truncations[Caught], n.Truncations[Warned], n.Truncations[Tolerated],
				fl, n.Flips[Caught], n.Flips[Warned], n.Flips[Tolerated], n.Flips[Undetectable]+n.Flips[UndetectableChanged], n.Flips[UndetectableChanged],
				n.Truncations[Failed]+n.Flips[Failed])
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// compareGroups orders groups by the version they start with ("mc,
// uncompressed"): the 3.x-row versions in table order, then the 2.x-cell
// ones; each uncompressed first.
func compareGroups(a, b string) int {
	rank := func(g string) int {
		name, _, _ := strings.Cut(g, ",")
		r := 20 * len(version.Names()) // not a version: last
		for i, v := range version.All() {
			if v.String() == name {
				r = 10 * i
				if v.LegacyCells() {
					r += 10 * len(version.Names())
				}
			}
		}
		if strings.Contains(g, "compressed") && !strings.Contains(g, "uncompressed") {
			r += 2
		}
		if strings.Contains(g, "deliberately") {
			r++
		}
		return r
	}
	if d := rank(a) - rank(b); d != 0 {
		return d
	}
	return strings.Compare(a, b)
}

// WriteUndetected lists the examples of undetectable flips per group and
// component.
func (t *Tally) WriteUndetected(w io.Writer) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b strings.Builder
	for g, comps := range t.cells {
		for c, n := range comps {
			for _, ex := range n.Undetected {
				fmt.Fprintf(&b, "%s %s: %s\n", g, c, ex)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
