package compaction

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// RangeResult is what went into the outputs of one of Options.Ranges.
type RangeResult struct {
	// Range is the token range, Dir the directory its outputs are in.
	Range dht.Range
	Dir   string
	// Outputs are its SSTables, in order (none when no partition fell in
	// the range; Dir is then not created).
	Outputs []*sstables.WriteResult
	// Partitions and Rows count what was written into them.
	Partitions, Rows int64
}

// Move is Compact for the commands that move data rather than compact it
// (castable filter and split): opts.NoPurge is forced on, so tombstones
// and expired cells are kept whatever their age and no input is dropped
// as fully expired — the outputs may be loaded beside other SSTables of the
// table, whose data those tombstones still shadow. Shadowed data is still
// dropped as the merge drops it. Route with opts.Keep and opts.Ranges;
// Compact with those options purges as a compaction does.
func Move(ctx context.Context, inputs []sstables.Reader, t *schema.Table, opts Options) (*Result, error) {
	opts.NoPurge = true
	return Compact(ctx, inputs, t, opts)
}

// RangeDirName is the default name of the directory of range i of n
// (Options.RangeDir): range-000, range-001, … (more digits past 1000).
func RangeDirName(i, n int) string {
	width := max(3, len(fmt.Sprint(n-1)))
	return fmt.Sprintf("range-%0*d", width, i)
}

// router sends each partition of the merged stream to its output
// sequence: the one of Options.Out, or with Options.Ranges the one of the
// partition's range. Ranges are contiguous in the stream's token order
// (a wrapping range in two pieces, at its start and its end), so a
// range's last SSTable is finished as soon as the stream is past the
// range's last piece: at most two writers are open at a time.
type router struct {
	ctx    context.Context
	outs   []*outputs
	pieces []piece // the ranges' pieces in token order (none: one output)
	last   []int   // last[r] is the index in pieces of range r's last piece
	at     int     // the piece of the previous partition
	cur    *outputs
	// cutAt is MaxSSTableSize in uncompressed Data.db bytes (see cut).
	cutAt int64
}

// piece is a non-wrapping part of a range: the tokens after left (from the
// minimum when fromMin) up to right (to the maximum when toMax).
type piece struct {
	left, right    dht.Token
	fromMin, toMax bool
	rng            int
}

func (p piece) contains(t dht.Token) bool {
	return (p.fromMin || dht.Compare(t, p.left) > 0) && (p.toMax || dht.Compare(t, p.right) <= 0)
}

// newRouter builds the output sequences of a compaction.
func newRouter(ctx context.Context, format sstables.Format, t *schema.Table, base sstables.WriterOptions, opts Options, res *Result) (*router, error) {
	rt := &router{ctx: ctx, cutAt: opts.MaxSSTableSize}
	if res.InputBytes > 0 && res.InputLength > 0 {
		rt.cutAt = int64(float64(opts.MaxSSTableSize) * float64(res.InputLength) / float64(res.InputBytes))
	}
	mk := func(dir string) *outputs {
		wo := base
		wo.Dir = dir
		return &outputs{ctx: ctx, format: format, table: t, base: wo, opts: opts, res: res, dir: dir}
	}
	if len(opts.Ranges) == 0 {
		rt.outs = []*outputs{mk(opts.Out)}
		rt.cur = rt.outs[0]
		if opts.Keep != nil && base.ExpectedPartitions <= exactFilterKeys {
			// A filter's output holds an unknown part of the keys: its
			// bloom filter is sized for the keys it gets.
			rt.cur.base.ExpectedPartitions = 0
		}
		return rt, nil
	}
	for i, r := range opts.Ranges {
		name := RangeDirName(i, len(opts.Ranges))
		if opts.RangeDir != nil {
			name = opts.RangeDir(i)
		}
		dir := name
		if !filepath.IsAbs(name) {
			dir = filepath.Join(opts.Out, name)
		}
		rt.outs = append(rt.outs, mk(dir))
		res.Ranges = append(res.Ranges, RangeResult{Range: r, Dir: dir})
		switch {
		case dht.Compare(r.Left, r.Right) == 0: // (x, x]: the whole ring
			rt.pieces = append(rt.pieces, piece{fromMin: true, toMax: true, rng: i})
		case r.Wraps():
			rt.pieces = append(rt.pieces, piece{fromMin: true, right: r.Right, rng: i}, piece{left: r.Left, toMax: true, rng: i})
		default:
			rt.pieces = append(rt.pieces, piece{left: r.Left, right: r.Right, rng: i})
		}
	}
	slices.SortFunc(rt.pieces, func(a, b piece) int {
		switch {
		case a.fromMin && b.fromMin:
			return cmp.Compare(a.rng, b.rng)
		case a.fromMin:
			return -1
		case b.fromMin:
			return 1
		}
		return dht.Compare(a.left, b.left)
	})
	for i := 1; i < len(rt.pieces); i++ {
		a, b := rt.pieces[i-1], rt.pieces[i]
		if a.toMax || b.fromMin || dht.Compare(b.left, a.right) < 0 {
			return nil, fmt.Errorf("compaction: token ranges %d and %d overlap: a partition would go to two outputs", a.rng, b.rng)
		}
	}
	rt.last = make([]int, len(opts.Ranges))
	for i, p := range rt.pieces {
		rt.last[p.rng] = i
	}
	// Per output, the bloom filter is sized for the range's share.
	if base.ExpectedPartitions > 0 {
		for i, o := range rt.outs {
			o.base.ExpectedPartitions = routedKeys(base.ExpectedPartitions, t, opts.Ranges[i], len(opts.Ranges))
		}
	}
	return rt, nil
}

// exactFilterKeys is the largest estimate for which a routed output (a
// range's, or a Keep's) sizes its bloom filter from the keys it really
// holds (WriterOptions.ExpectedPartitions 0: 16 bytes per key kept until
// Finish); beyond it a range's filter is sized for its share of the
// estimate, a Keep's for the whole estimate.
const exactFilterKeys = 1 << 20

// routedKeys is the ExpectedPartitions of a range's output, which holds
// part of the inputs' keys: 0 (sized exactly at Finish) for small
// estimates, else the range's share of the ring with a margin.
func routedKeys(estimate int64, t *schema.Table, r dht.Range, n int) int64 {
	if estimate <= exactFilterKeys {
		return 0
	}
	if p, err := dht.Lookup(t.Options.Partitioner); err == nil {
		if share, ok := dht.RingShare(p, r); ok {
			// A margin for an uneven spread of few keys.
			return max(1, min(estimate, int64(math.Ceil(float64(estimate)*share*1.25))))
		}
	}
	return max(1, estimate/int64(n))
}

// keep is the scan's filter: opts.Keep, and with ranges the tokens in one.
func (rt *router) keep(user func(dht.Token, []byte) bool) func(dht.Token, []byte) bool {
	if len(rt.pieces) == 0 {
		return user
	}
	return func(t dht.Token, key []byte) bool {
		if rt.find(t) < 0 {
			return false
		}
		return user == nil || user(t, key)
	}
}

// find returns the index in pieces of the piece holding t, -1 when none
// does; it starts from the previous partition's, the stream being sorted.
func (rt *router) find(t dht.Token) int {
	if rt.at < len(rt.pieces) && rt.pieces[rt.at].contains(t) {
		return rt.at
	}
	i, _ := slices.BinarySearchFunc(rt.pieces, t, func(p piece, t dht.Token) int {
		switch {
		case p.toMax || dht.Compare(t, p.right) <= 0:
			if p.fromMin || dht.Compare(t, p.left) > 0 {
				return 0
			}
			return 1
		}
		return -1
	})
	if i < len(rt.pieces) && rt.pieces[i].contains(t) {
		return i
	}
	return -1
}

// route returns the output sequence of the partition about to be written,
// with a writer open: it finishes the SSTables of the ranges the stream
// has passed and cuts the current one at MaxSSTableSize.
func (rt *router) route(p *mutation.Partition) (*outputs, error) {
	o := rt.cur
	if len(rt.pieces) > 0 {
		i := rt.find(p.Token)
		if i < 0 {
			return nil, fmt.Errorf("compaction: partition %s is in none of the token ranges", mutation.FormatKey(rt.outs[0].table, p.Key))
		}
		if i != rt.at {
			for r, last := range rt.last {
				if last < i && rt.outs[r].cur != nil {
					if err := rt.outs[r].finish(); err != nil {
						return nil, err
					}
				}
			}
			rt.at = i
		}
		o = rt.outs[rt.pieces[i].rng]
		rt.cur = o
	}
	// MaxSSTableSize is checked between partitions against the
	// uncompressed Data.db length, MaxSSTableSize scaled by the inputs'
	// compression ratio: the bytes handed to the file so far depend on how
	// far the parallel compression has got, and a rerun must cut at the
	// same partitions (Cassandra, compressing inline, cuts on the bytes
	// written).
	if o.cur != nil && o.opts.MaxSSTableSize > 0 {
		if ds, ok := o.cur.(sstables.DataSizer); ok {
			if uncompressed, _ := ds.DataSize(); uncompressed >= rt.cutAt {
				if err := o.finish(); err != nil {
					return nil, err
				}
			}
		}
	}
	if o.cur == nil {
		if err := o.next(); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// finish finishes every open SSTable and fills in Result.Ranges.
func (rt *router) finish() error {
	for _, o := range rt.outs {
		if err := o.finish(); err != nil {
			return err
		}
	}
	if len(rt.pieces) > 0 {
		res := rt.outs[0].res
		for i, o := range rt.outs {
			res.Ranges[i].Outputs = o.done
			res.Ranges[i].Partitions, res.Ranges[i].Rows = o.partitions, o.rows
		}
	}
	return nil
}

// abort removes every SSTable the compaction wrote or was writing (after
// a failure, or when it did not finish); it does nothing once finish
// succeeded.
func (rt *router) abort(failed bool) error {
	var errs []error
	unfinished := failed
	for _, o := range rt.outs {
		if o.cur != nil {
			unfinished = true
		}
	}
	if !unfinished {
		return nil
	}
	for _, o := range rt.outs {
		if o.cur != nil {
			errs = append(errs, o.cur.Abort())
			o.cur = nil
		}
		for _, r := range o.done {
			removeSSTable(o.opts.FS, r)
		}
		o.done = nil
	}
	res := rt.outs[0].res
	res.Outputs = nil
	for i := range res.Ranges {
		res.Ranges[i].Outputs = nil
	}
	return errors.Join(errs...)
}
