package fastforward

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// ReadGroup is a read test group: a family of cases run on one dataset kind.
type ReadGroup struct {
	Name    string
	Message string
	// Large says the group runs on the large-partition datasets; the others
	// run on the small-partition ones.
	Large bool
	cases func(rows int64) []readCase
}

type readCase struct {
	params string
	// want is the number of fragments the case must read (-1: unchecked).
	want int64
	run  func(r *reader) (int64, error)
}

// ReadGroups are the groups the tool runs, in ScyllaDB's order (large
// partition groups first).
var ReadGroups = []*ReadGroup{
	{
		Name: "large-partition-skips", Message: "Testing scanning large partition with skips.\nReads whole range interleaving reads with skips according to read-skip pattern",
		Large: true, cases: func(rows int64) []readCase { return skipCases(rows, (*reader).rowSkips) },
	},
	{
		Name: "large-partition-slicing", Message: "Testing slicing of large partition",
		Large: true, cases: func(rows int64) []readCase { return sliceCases(rows, (*reader).rowSlice) },
	},
	{
		Name: "small-partition-skips", Message: "Testing scanning small partitions with skips.\nReads whole range interleaving reads with skips according to read-skip pattern",
		cases: func(rows int64) []readCase { return skipCases(rows, (*reader).partitionSkips) },
	},
	{
		Name: "small-partition-slicing", Message: "Testing slicing small partitions",
		cases: func(rows int64) []readCase { return sliceCases(rows, (*reader).partitionSlice) },
	},
}

var skipPatterns = func() [][2]int64 {
	var out [][2]int64
	out = append(out, [2]int64{1, 0})
	for _, read := range []int64{1, 64} {
		for _, skip := range []int64{1, 8, 16, 32, 64, 256, 1024, 4096} {
			out = append(out, [2]int64{read, skip})
		}
	}
	return out
}()

// expectedSkipFrags is how many of n items a read/skip pattern reads.
func expectedSkipFrags(n, read, skip int64) int64 {
	period := read + skip
	full := n / period
	rest := min(n%period, read)
	return full*read + rest
}

func skipCases(rows int64, run func(r *reader, read, skip int64) (int64, error)) []readCase {
	var out []readCase
	for _, p := range skipPatterns {
		read, skip := p[0], p[1]
		out = append(out, readCase{
			params: fmt.Sprintf("read=%d,skip=%d", read, skip),
			want:   expectedSkipFrags(rows, read, skip),
			run:    func(r *reader) (int64, error) { return run(r, read, skip) },
		})
	}
	return out
}

func sliceCases(rows int64, run func(r *reader, offset, read int64) (int64, error)) []readCase {
	var out []readCase
	for _, offset := range []int64{0, rows / 2} {
		for _, read := range []int64{1, 32, 256, 4096} {
			out = append(out, readCase{
				params: fmt.Sprintf("offset=%d,read=%d", offset, read),
				want:   max(0, min(read, rows-offset)),
				run:    func(r *reader) (int64, error) { return run(r, offset, read) },
			})
		}
	}
	return out
}

// reader runs read cases on one SSTable.
type reader struct {
	r sstables.Reader
	// keys are the partition keys in partition order (small datasets).
	keys [][]byte
	// rowKey returns the clustering of the large partition's n-th row
	// (large datasets; nil: the read cases decode every row they skip).
	rowKey func(n int64) mutation.Clustering
}

// seeker returns sc as a ClusteringSeeker when it is one and the dataset's
// row clusterings are known.
func (r *reader) seeker(sc sstables.Scanner) sstables.ClusteringSeeker {
	if r.rowKey == nil {
		return nil
	}
	s, _ := sc.(sstables.ClusteringSeeker)
	return s
}

// partitionSkips scans every partition, reading `read` and then skipping
// `skip` partitions; skipped partitions' rows are not decoded.
func (r *reader) partitionSkips(read, skip int64) (int64, error) {
	sc, err := r.r.Scan()
	if err != nil {
		return 0, err
	}
	defer sc.Close()
	var frags int64
	for n := int64(0); ; n++ {
		if _, err := sc.NextPartition(); err == io.EOF {
			return frags, nil
		} else if err != nil {
			return frags, err
		}
		if n%(read+skip) >= read {
			continue
		}
		rows, err := drain(sc, -1)
		frags += rows
		if err != nil {
			return frags, err
		}
	}
}

// partitionSlice reads `read` consecutive partitions starting at the
// offset-th: one lookup of the first (Summary → Index → Data), then a scan,
// as ScyllaDB's partition-range read does.
func (r *reader) partitionSlice(offset, read int64) (int64, error) {
	if offset >= int64(len(r.keys)) || read <= 0 {
		return 0, nil
	}
	sc, err := r.r.ScanFrom(r.keys[offset])
	if err != nil {
		return 0, err
	}
	if sc == nil {
		return 0, fmt.Errorf("partition %d not found", offset)
	}
	defer sc.Close()
	var frags int64
	for n := int64(0); n < read; n++ {
		p, err := sc.NextPartition()
		if err == io.EOF {
			break
		}
		if err != nil {
			return frags, err
		}
		if !p.Static.IsEmpty() {
			frags++
		}
		rows, err := drain(sc, -1)
		frags += rows
		if err != nil {
			return frags, err
		}
	}
	return frags, nil
}

// minSeekSkip is the shortest skip rowSkips seeks over: shorter ones cost
// less by decoding the skipped rows than by a seek's comparisons (measured
// on large-part-ds1: at skip=1 a seek per row reads 40% fewer fragments
// per second, at 8 about as many, from 16 on more).
const minSeekSkip = 16

// rowSkips scans the large partition reading `read` rows, then skipping
// `skip`: through SeekClustering to the next row to read when the scanner
// can seek and skip is at least minSeekSkip, otherwise by decoding the
// skipped rows.
func (r *reader) rowSkips(read, skip int64) (int64, error) {
	sc, err := r.r.Scan()
	if err != nil {
		return 0, err
	}
	defer sc.Close()
	if _, err := sc.NextPartition(); err != nil {
		return 0, err
	}
	var frags int64
	if s := r.seeker(sc); s != nil && skip >= minSeekSkip {
		for n := int64(0); ; n += read + skip {
			if n > 0 {
				if err := s.SeekClustering(r.rowKey(n)); err != nil {
					return frags, err
				}
			}
			got, err := drain(sc, read)
			frags += got
			if err != nil || got < read {
				return frags, err
			}
		}
	}
	for n := int64(0); ; n++ {
		row, marker, err := sc.Next()
		if err != nil {
			return frags, err
		}
		if row == nil && marker == nil {
			return frags, nil
		}
		if n%(read+skip) < read {
			frags++
		}
	}
}

// rowSlice reads rows [offset, offset+read) of the large partition, seeking
// to the offset-th row when the scanner can.
func (r *reader) rowSlice(offset, read int64) (int64, error) {
	sc, err := r.r.Scan()
	if err != nil {
		return 0, err
	}
	defer sc.Close()
	if _, err := sc.NextPartition(); err != nil {
		return 0, err
	}
	if s := r.seeker(sc); s != nil && offset > 0 {
		if err := s.SeekClustering(r.rowKey(offset)); err != nil {
			return 0, err
		}
		return drain(sc, read)
	}
	var frags int64
	for n := int64(0); n < offset+read; n++ {
		row, marker, err := sc.Next()
		if err != nil {
			return frags, err
		}
		if row == nil && marker == nil {
			break
		}
		if n >= offset {
			frags++
		}
	}
	return frags, nil
}

// drain reads the rest of the current partition, returning the number of
// rows and markers.
func drain(sc sstables.Scanner, limit int64) (int64, error) {
	var n int64
	for limit < 0 || n < limit {
		row, marker, err := sc.Next()
		if err != nil {
			return n, err
		}
		if row == nil && marker == nil {
			break
		}
		n++
	}
	return n, nil
}

// ReadResult is the outcome of one read test case.
type ReadResult struct {
	Group, Params string
	// Frags is the number of fragments one run reads.
	Frags int64
	// Time is the duration of the median run.
	Time       time.Duration
	Iterations int
	FragsPerS  Summary
	// Error is set when the case read the wrong number of fragments.
	Error string
}

// ReadOptions configure the read tests.
type ReadOptions struct {
	// CaseDuration is how long each case is repeated (at least 4 runs);
	// 0 runs each case once.
	CaseDuration time.Duration
	// Groups selects groups by name; empty means all that fit the dataset.
	Groups []string
}

// RunReads runs the read groups that fit pop's dataset on its compacted
// SSTable, calling report after each case.
func RunReads(ctx context.Context, pop *Population, format sstables.Format, opts ReadOptions, report func(*ReadGroup, ReadResult)) ([]ReadResult, error) {
	r, err := format.Open(pop.Compacted, pop.Table, sstables.ReaderOptions{})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	rd := &reader{r: r}
	if pop.Dataset.Large {
		gen := newGenerator(pop.Table, nil, 0)
		rd.rowKey = func(n int64) mutation.Clustering { return gen.next(pop.Dataset, n).Rows[0].Clustering }
	} else {
		gen := newGenerator(pop.Table, nil, 0)
		for _, i := range tokenOrder(pop.Dataset, gen, pop.Config.Rows, r.Partitioner()) {
			rd.keys = append(rd.keys, append([]byte(nil), gen.next(pop.Dataset, i).Key...))
		}
	}
	var out []ReadResult
	for _, g := range ReadGroups {
		if g.Large != pop.Dataset.Large || !selected(g.Name, opts.Groups) {
			continue
		}
		for _, c := range g.cases(pop.Config.Rows) {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			res, err := runCase(rd, c, opts.CaseDuration)
			if err != nil {
				return out, fmt.Errorf("%s %s: %w", g.Name, c.params, err)
			}
			res.Group = g.Name
			out = append(out, res)
			if report != nil {
				report(g, res)
			}
		}
	}
	return out, nil
}

func selected(name string, groups []string) bool {
	if len(groups) == 0 {
		return true
	}
	for _, g := range groups {
		if g == name {
			return true
		}
	}
	return false
}

// runCase runs c once, then (with a case duration) max(duration/first, 3)
// more times, as ScyllaDB's run_test_case does.
func runCase(rd *reader, c readCase, dur time.Duration) (ReadResult, error) {
	res := ReadResult{Params: c.params}
	var rates []float64
	var times []time.Duration
	run := func() error {
		start := time.Now()
		n, err := c.run(rd)
		el := time.Since(start)
		if err != nil {
			return err
		}
		res.Frags = n
		if c.want >= 0 && n != c.want {
			res.Error = fmt.Sprintf("read %d fragments, expected %d", n, c.want)
		}
		times = append(times, el)
		rates = append(rates, float64(n)/max(el.Seconds(), 1e-9))
		return nil
	}
	if err := run(); err != nil {
		return res, err
	}
	if dur > 0 {
		more := max(int(dur/max(times[0], time.Microsecond)), 3)
		for i := 0; i < more; i++ {
			if err := run(); err != nil {
				return res, err
			}
		}
	}
	res.Iterations = len(rates)
	res.FragsPerS = Summarize(rates)
	res.Time = times[res.FragsPerS.MedianIndex]
	return res, nil
}
