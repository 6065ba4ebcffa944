package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// The export's input side: where each SSTable's partitions lie on the ring
// (its first and last keys' tokens, from Statistics.db or Summary.db, read
// without opening Data.db), the token range segments the export is split
// into, and a reader that scans one SSTable within one segment only,
// starting near the segment through Summary.db where the format has one.

// sstableRef is one input SSTable as the planning stages describe it
// (exported fields: it travels as JSON).
type sstableRef struct {
	// Data is the path of its Data.db, on any Beam filesystem.
	Data string
	// Partitioner is the class name Statistics.db gives.
	Partitioner string
	// First and Last are the tokens of its first and last partitions in
	// the partitioner's string form; both empty when the SSTable does not
	// record them (it is then taken to span the ring).
	First, Last string
	// Size is Data.db's size in bytes (-1 when unknown).
	Size int64
	// Reconcile4 says its release reconciles with Cassandra 4.0's rules
	// (table.RulesOf).
	Reconcile4 bool
}

// Maximum sizes of the components read whole while planning.
const (
	maxStatisticsRead = 64 << 20
	maxSummaryRead    = 1 << 30
)

// descriptorOf parses the descriptor of an SSTable component path on any
// Beam filesystem. For a remote path Dir is "." (the caller knows where
// the files are); the second result is the component name prefix
// ("nb-1-big-").
func descriptorOf(p string) (sstables.Descriptor, string, error) {
	name := p
	if !isLocal(p) {
		name = path.Base(p)
	}
	d, c, temp, err := sstables.ParseDescriptor(name)
	if err != nil {
		return d, "", err
	}
	if temp {
		return d, "", fmt.Errorf("%s: a temporary file of an unfinished write, not an SSTable", p)
	}
	base := name[strings.LastIndexAny(name, "/")+1:]
	return d, strings.TrimSuffix(base, string(c)), nil
}

// siblingPath is the path of another component of the SSTable whose
// Data.db is data.
func siblingPath(data string, c sstables.Component) string {
	return strings.TrimSuffix(data, string(sstables.ComponentData)) + string(c)
}

// readBounds describes the SSTable whose Data.db is data: its partitioner
// and the tokens of its first and last partitions (Statistics.db records
// the keys from nc and oa on; before, Summary.db does). An SSTable with
// neither is taken to span the ring.
func readBounds(ctx context.Context, data string) (sstableRef, error) {
	ref := sstableRef{Data: data, Size: -1}
	d, _, err := descriptorOf(data)
	if err != nil {
		return ref, err
	}
	ref.Reconcile4 = d.Version.Profile().Reconcile4
	statsPath := siblingPath(data, sstables.ComponentStatistics)
	b, err := readFile(ctx, statsPath, maxStatisticsRead)
	if err != nil {
		return ref, fmt.Errorf("SSTable %s: %w", data, err)
	}
	st, err := sstables.DecodeStatisticsWith(b, d.Version, statsPath, schema.TypeOptions{OpaqueUnknownTypes: true})
	if err != nil {
		return ref, err
	}
	part, err := dht.Lookup(st.Partitioner)
	if err != nil {
		return ref, fmt.Errorf("%s: %w", statsPath, err)
	}
	ref.Partitioner = part.Name()
	first, last := st.Stats.FirstKey, st.Stats.LastKey
	if len(first) == 0 {
		sumPath := siblingPath(data, sstables.ComponentSummary)
		b, err := readFile(ctx, sumPath, maxSummaryRead)
		switch {
		case err == nil:
			// The keys come before the la trailer, which is not needed.
			s, err := sstables.ParseSummary(b, sumPath, sstables.SummaryReadOptions{})
			if err != nil {
				return ref, err
			}
			first, last = s.First, s.Last
		case errors.Is(err, fs.ErrNotExist) || isNotFound(err):
			// No Summary.db (BTI, or a lost one): the whole ring.
		default:
			return ref, fmt.Errorf("SSTable %s: %w", data, err)
		}
	}
	if len(first) > 0 && len(last) > 0 {
		ref.First, ref.Last = part.String(part.Token(first)), part.String(part.Token(last))
	}
	if size, err := fileSize(ctx, data); err == nil {
		ref.Size = size
	}
	return ref, nil
}

// isNotFound reports whether a Beam filesystem error means the file does
// not exist (filesystems other than the local one have errors of their
// own).
func isNotFound(err error) bool {
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "not exist") || strings.Contains(s, "not found") || strings.Contains(s, "404") || strings.Contains(s, "nosuchkey")
}

// segment is one piece of the export's split of the ring: the tokens t
// with Left < t <= Right, or, when Right is the minimum token, every token
// after Left (the segment that ends the ring). Segments never wrap: a ring
// range that does is cut in two at the minimum token.
type segment struct {
	Left, Right dht.Token
	// Node is the node whose token ends the segment's ring range (the
	// range's primary replica), with a ring; "" otherwise.
	Node string
}

func (s segment) toEnd() bool { return s.Right.IsMinimum() }

// contains reports whether t is in s.
func (s segment) contains(t dht.Token) bool {
	return dht.Compare(t, s.Left) > 0 && (s.toEnd() || dht.Compare(t, s.Right) <= 0)
}

// overlaps reports whether an SSTable whose partitions lie between the
// tokens first and last (inclusive) may hold partitions of s.
func (s segment) overlaps(first, last dht.Token) bool {
	return dht.Compare(last, s.Left) > 0 && (s.toEnd() || dht.Compare(first, s.Right) <= 0)
}

// rangeOf is s as a dht.Range, which Format prints as Cassandra does.
func (s segment) rangeOf() dht.Range { return dht.Range{Left: s.Left, Right: s.Right} }

// exportSegments splits the ring: n equal ranges (dht.SplitRing), or the
// ranges of a ring's tokens, in token order, the one that wraps cut at
// the minimum token. Together they hold every token once.
func exportSegments(part dht.Partitioner, n int, ring []Node) ([]segment, error) {
	if len(ring) == 0 {
		ranges, err := dht.SplitRing(part, max(n, 1))
		if err != nil {
			return nil, err
		}
		out := make([]segment, len(ranges))
		for i, r := range ranges {
			out[i] = segment{Left: r.Left, Right: r.Right}
		}
		return out, nil
	}
	type owned struct {
		t    dht.Token
		node string
	}
	var tokens []owned
	seen := map[string]string{}
	for _, nd := range ring {
		for _, s := range nd.Tokens {
			t, err := part.ParseToken(s)
			if err != nil {
				return nil, fmt.Errorf("ring: node %s: %w", nd.Name, err)
			}
			key := part.String(t)
			if prev, dup := seen[key]; dup {
				return nil, fmt.Errorf("ring: token %s belongs to %s and %s", key, prev, nd.Name)
			}
			seen[key] = nd.Name
			tokens = append(tokens, owned{t, nd.Name})
		}
	}
	if len(tokens) == 0 {
		return nil, errors.New("ring: no token")
	}
	sort.Slice(tokens, func(i, j int) bool { return dht.Compare(tokens[i].t, tokens[j].t) < 0 })
	var out []segment
	left := part.MinToken()
	for _, o := range tokens {
		if o.t.IsMinimum() {
			continue // (min, min] would be the whole ring
		}
		out = append(out, segment{Left: left, Right: o.t, Node: o.node})
		left = o.t
	}
	// The rest of the ring belongs to the range that wraps, which the
	// first token ends.
	out = append(out, segment{Left: left, Right: part.MinToken(), Node: tokens[0].node})
	return out, nil
}

// rangeReader is an SSTable reader whose Scan returns only the partitions
// of one segment: it starts at the last Summary.db entry at or before the
// segment (the scan then skips at most one summary interval of
// partitions), or at the beginning when the format has no summary (BTI),
// and ends at the first partition past the segment.
type rangeReader struct {
	sstables.Reader
	part dht.Partitioner
	seg  segment
	from []byte // the key ScanFrom starts at; nil: the first partition
}

// newRangeReader wraps r for seg; summary is the SSTable's parsed
// Summary.db, or nil.
func newRangeReader(r sstables.Reader, seg segment, summary *sstables.Summary) *rangeReader {
	rr := &rangeReader{Reader: r, part: r.Partitioner(), seg: seg}
	if summary != nil && !seg.Left.IsMinimum() {
		// The last entry whose token is at or before Left: every partition
		// before it sorts before Left too.
		n := summary.Len()
		i := sort.Search(n, func(i int) bool { return dht.Compare(rr.part.Token(summary.Key(i)), seg.Left) > 0 })
		if i > 0 {
			rr.from = summary.Key(i - 1)
		}
	}
	return rr
}

// Scan implements sstables.Reader.
func (r *rangeReader) Scan() (sstables.Scanner, error) {
	var sc sstables.Scanner
	var err error
	if r.from != nil {
		sc, err = r.Reader.ScanFrom(r.from)
	}
	if sc == nil && err == nil {
		sc, err = r.Reader.Scan()
	}
	if err != nil {
		return nil, err
	}
	return &rangeScanner{Scanner: sc, part: r.part, seg: r.seg}, nil
}

// rangeScanner skips the partitions before its segment and ends after it.
type rangeScanner struct {
	sstables.Scanner
	part dht.Partitioner
	seg  segment
	done bool
}

// NextPartition implements sstables.Scanner.
func (s *rangeScanner) NextPartition() (*mutation.Partition, error) {
	for !s.done {
		p, err := s.Scanner.NextPartition()
		if err != nil {
			return nil, err
		}
		t := s.part.Token(p.Key)
		if dht.Compare(t, s.seg.Left) <= 0 {
			continue
		}
		if !s.seg.toEnd() && dht.Compare(t, s.seg.Right) > 0 {
			s.done = true
			break
		}
		return p, nil
	}
	return nil, io.EOF
}
