package sstables

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/castable-db/castable/dht"
)

// Summary.db layout (la and mc):
//
//	+0       i32  minIndexInterval      the table's min_index_interval (or the effective interval, see below)
//	+4       i32  N                     number of entries
//	+8       i64  offheapSize           4·N + E (E = byte length of the entries region)
//	+16      i32  samplingLevel         128 (full sampling) for written SSTables
//	+20      i32  sizeAtFullSampling    ceil(partitions / minIndexInterval)
//	+24      N × u32 LITTLE-ENDIAN      offset[k] = 4·N + start of entry k in the entries region
//	                                    (offsets are relative to file byte 24)
//	+24+4N   entries region, E bytes:   entry k = key bytes (no length) ‖ u64 LITTLE-ENDIAN Index.db position
//	         i32 len ‖ first partition key of the SSTable
//	         i32 len ‖ last partition key of the SSTable
//	la only: the boundaries trailer:
//	         Java UTF indexMode ; if "mmap": i32 n ; n × i64 Index.db segment boundaries
//	         Java UTF dataMode  ; if "mmap" and Data.db is uncompressed: i32 n ; n × i64 boundaries
//
// The header, the first/last keys and the trailer are big-endian; offsets
// and positions are the writing JVM's native order, little-endian on every
// known platform. Entries sample partitions 0, I, 2I, … in SSTable order.
// Readers ignore bytes after the last key (mc) or after the trailer (la;
// two real files carry 4 unexplained bytes there).
//
// For enormous SSTables Cassandra raises the interval: when
// (expectedKeys / I) · (expectedKeySize + 8) exceeds 2^31 − 1 it uses
// ceil(expectedKeys · (expectedKeySize + 8) / (2^31 − 1)) and writes that
// interval in the header.
const (
	// DefaultMinIndexInterval is min_index_interval's default.
	DefaultMinIndexInterval = 128
	// BaseSamplingLevel is full sampling.
	BaseSamplingLevel = 128
	// defaultExpectedKeySize is Cassandra's guess of a key's size when it
	// sizes the summary.
	defaultExpectedKeySize = 64
	// summaryHeaderLen is the length of the fixed header.
	summaryHeaderLen = 24
	// DiskAccessMmap and DiskAccessStandard are the disk access mode names
	// of the la trailer.
	DiskAccessMmap     = "mmap"
	DiskAccessStandard = "standard"
	// maxSummarySize bounds the Summary.db a reader loads.
	maxSummarySize = 1 << 31
)

// SummaryBoundaries is the la trailer of Summary.db: the disk access modes
// and mmap segment boundaries of Index.db and Data.db. The zero value is
// what a Cassandra 2.2 flush writes for a small SSTable: mode "mmap" with
// boundaries [0] for Index.db and, when uncompressed, for Data.db.
type SummaryBoundaries struct {
	// IndexMode is the disk access mode of Index.db; "" means "mmap".
	IndexMode string
	// IndexBoundaries are written when IndexMode is "mmap"; nil means [0].
	IndexBoundaries []int64
	// DataMode is the disk access mode of Data.db; "" means "mmap".
	DataMode string
	// DataBoundaries are written when DataMode is "mmap" and Data.db is
	// uncompressed; nil means [0].
	DataBoundaries []int64
	// DataCompressed says Data.db is compressed (its segment builder writes
	// only the mode).
	DataCompressed bool
}

func (b *SummaryBoundaries) appendTo(dst []byte) ([]byte, error) {
	mode := func(m string) string {
		if m == "" {
			return DiskAccessMmap
		}
		return m
	}
	bounds := func(dst []byte, v []int64) []byte {
		if v == nil {
			v = []int64{0}
		}
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(v)))
		for _, x := range v {
			dst = binary.BigEndian.AppendUint64(dst, uint64(x))
		}
		return dst
	}
	var err error
	im := mode(b.IndexMode)
	if dst, err = AppendJavaUTF(dst, im); err != nil {
		return dst, err
	}
	if im == DiskAccessMmap {
		dst = bounds(dst, b.IndexBoundaries)
	}
	dm := mode(b.DataMode)
	if dst, err = AppendJavaUTF(dst, dm); err != nil {
		return dst, err
	}
	if dm == DiskAccessMmap && !b.DataCompressed {
		dst = bounds(dst, b.DataBoundaries)
	}
	return dst, nil
}

// SummaryOptions configure a SummaryBuilder. The zero value of every field
// means the default given in its comment.
type SummaryOptions struct {
	// MinIndexInterval is the table's min_index_interval; 0 means 128.
	MinIndexInterval int
	// ExpectedKeys is the number of partitions the writer expects; it only
	// raises the interval for enormous SSTables (see the layout comment).
	// 0 means unknown: the interval is used as is.
	ExpectedKeys int64
	// ExpectedKeySize is the key size assumed with ExpectedKeys; 0 means 64.
	ExpectedKeySize int
	// Boundaries is the la trailer; nil writes none (mc).
	Boundaries *SummaryBoundaries
}

// EffectiveIndexInterval returns the interval a builder with these options
// samples at.
func (o SummaryOptions) EffectiveIndexInterval() int {
	interval := o.MinIndexInterval
	if interval <= 0 {
		interval = DefaultMinIndexInterval
	}
	if o.ExpectedKeys <= 0 {
		return interval
	}
	keySize := int64(o.ExpectedKeySize)
	if keySize <= 0 {
		keySize = defaultExpectedKeySize
	}
	entrySize := keySize + 8
	if (o.ExpectedKeys/int64(interval))*entrySize > math.MaxInt32 {
		return int(math.Ceil(float64(o.ExpectedKeys*entrySize) / math.MaxInt32))
	}
	return interval
}

// SummaryBuilder builds Summary.db from every partition's key and Index.db
// position, in SSTable order. It keeps only the sampled keys and reuses its
// buffers: Add does not allocate in steady state.
type SummaryBuilder struct {
	interval   int64
	keys       int64
	untilNext  int64    // keys to add before the next sample (keys % interval == 0)
	starts     []uint32 // start of each entry in entries
	entries    []byte
	first      []byte
	last       []byte
	boundaries *SummaryBoundaries
}

// NewSummaryBuilder starts a summary.
func NewSummaryBuilder(opts SummaryOptions) *SummaryBuilder {
	return &SummaryBuilder{interval: int64(opts.EffectiveIndexInterval()), boundaries: opts.Boundaries}
}

// Add records a partition: its serialized key and the position of its
// entry in Index.db. The builder does not keep key.
func (b *SummaryBuilder) Add(key []byte, indexPosition int64) {
	if b.untilNext == 0 {
		b.untilNext = b.interval
		if len(b.entries)+len(key)+8 <= math.MaxInt32 {
			b.starts = append(b.starts, uint32(len(b.entries)))
			b.entries = append(b.entries, key...)
			b.entries = binary.LittleEndian.AppendUint64(b.entries, uint64(indexPosition))
		}
	}
	b.untilNext--
	if b.keys == 0 {
		b.first = append(b.first[:0], key...)
	}
	b.last = append(b.last[:0], key...)
	b.keys++
}

// Partitions returns the number of partitions added.
func (b *SummaryBuilder) Partitions() int64 { return b.keys }

// AppendTo appends the Summary.db encoding. At least one partition must
// have been added.
func (b *SummaryBuilder) AppendTo(dst []byte) ([]byte, error) {
	if b.keys == 0 {
		return dst, fmt.Errorf("sstables: a summary needs at least one partition")
	}
	n := len(b.starts)
	sizeAtFull := (b.keys + b.interval - 1) / b.interval
	dst = binary.BigEndian.AppendUint32(dst, uint32(b.interval))
	dst = binary.BigEndian.AppendUint32(dst, uint32(n))
	dst = binary.BigEndian.AppendUint64(dst, uint64(4*n+len(b.entries)))
	dst = binary.BigEndian.AppendUint32(dst, BaseSamplingLevel)
	dst = binary.BigEndian.AppendUint32(dst, uint32(sizeAtFull))
	for _, s := range b.starts {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(4*n)+s)
	}
	dst = append(dst, b.entries...)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b.first)))
	dst = append(dst, b.first...)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b.last)))
	dst = append(dst, b.last...)
	if b.boundaries != nil {
		return b.boundaries.appendTo(dst)
	}
	return dst, nil
}

// Summary is a parsed Summary.db. It refers to the buffer it was parsed
// from.
type Summary struct {
	// MinIndexInterval is the sampling interval in the header.
	MinIndexInterval int
	// SamplingLevel is 128 for full sampling.
	SamplingLevel int
	// SizeAtFullSampling is ceil(partitions / MinIndexInterval).
	SizeAtFullSampling int
	// First and Last are the SSTable's first and last partition keys.
	First, Last []byte
	// Boundaries is the la trailer (nil when absent or not asked for).
	Boundaries *SummaryBoundaries
	// TrailingBytes counts ignored bytes after the last key (mc) or the
	// trailer (la).
	TrailingBytes int

	offsets []uint32
	region  []byte // the offsets and entries, as offsets count
}

// EstimatedKeys is IndexSummary.getEstimatedKeyCount(), what a big-format
// SSTableReader.estimatedKeys() returns (Cassandra 3.x to 5.0):
// (sizeAtFullSampling + 1) · minIndexInterval in long arithmetic, from the
// header as stored. (Cassandra rebuilds a summary whose interval is not the
// table's min_index_interval, or that is missing, from Index.db at the
// table's interval; so does castable rebuild.)
func (s *Summary) EstimatedKeys() int64 {
	return (int64(s.SizeAtFullSampling) + 1) * int64(s.MinIndexInterval)
}

// SummaryReadOptions say what follows the keys of a Summary.db.
type SummaryReadOptions struct {
	// Boundaries asks to parse the la trailer.
	Boundaries bool
	// DataCompressed says Data.db is compressed (its trailer part has no
	// boundaries).
	DataCompressed bool
}

// ParseSummary parses Summary.db content; path names the file in errors.
func ParseSummary(b []byte, path string, opts SummaryReadOptions) (*Summary, error) {
	r := NewByteReader(b, path, ComponentSummary, 0)
	s := &Summary{}
	interval := r.I32()
	n := r.I32()
	offheap := r.I64()
	level := r.I32()
	full := r.I32()
	if err := r.Err(); err != nil {
		return nil, err
	}
	switch {
	case interval <= 0:
		return nil, Corruptf(path, string(ComponentSummary), 0, "min index interval %d", interval)
	case n < 0 || int64(n)*4 > int64(r.Remaining()):
		return nil, Corruptf(path, string(ComponentSummary), 4, "entry count %d out of range", n)
	case offheap < int64(n)*4 || offheap > int64(r.Remaining()):
		return nil, Corruptf(path, string(ComponentSummary), 8, "entries size %d out of range for %d entries and %d bytes", offheap, n, r.Remaining())
	case level <= 0 || level > BaseSamplingLevel:
		return nil, Corruptf(path, string(ComponentSummary), 16, "sampling level %d", level)
	case full < 0:
		return nil, Corruptf(path, string(ComponentSummary), 20, "size at full sampling %d", full)
	}
	s.MinIndexInterval, s.SamplingLevel, s.SizeAtFullSampling = int(interval), int(level), int(full)
	s.region = r.Bytes(int(offheap))
	s.offsets = make([]uint32, n)
	for k := range s.offsets {
		off := binary.LittleEndian.Uint32(s.region[4*k:])
		lo := uint32(4 * n)
		if k > 0 {
			lo = s.offsets[k-1] + 8
		}
		if off < lo || int64(off)+8 > offheap {
			return nil, Corruptf(path, string(ComponentSummary), int64(summaryHeaderLen+4*k), "entry %d offset %d out of range %d … %d", k, off, lo, offheap-8)
		}
		s.offsets[k] = off
	}
	s.First = r.IntBytes()
	s.Last = r.IntBytes()
	if err := r.Err(); err != nil {
		return nil, err
	}
	if opts.Boundaries && r.Remaining() > 0 {
		bd := &SummaryBoundaries{DataCompressed: opts.DataCompressed}
		bounds := func() []int64 {
			off := r.Offset()
			c := r.I32()
			if r.Err() == nil && (c < 0 || int(c) > r.Remaining()/8) {
				r.FailAt(off, "boundary count %d out of range", c)
				return nil
			}
			v := make([]int64, c)
			for i := range v {
				v[i] = r.I64()
			}
			return v
		}
		// mode reads a disk access mode: a 2.2 writer resolves auto and
		// mmap_index_only into one of these two per file.
		mode := func() string {
			off := r.Offset()
			m := r.JavaUTF()
			if r.Err() == nil && m != DiskAccessMmap && m != DiskAccessStandard {
				r.FailAt(off, "disk access mode %q (want %q or %q)", m, DiskAccessMmap, DiskAccessStandard)
			}
			return m
		}
		bd.IndexMode = mode()
		if bd.IndexMode == DiskAccessMmap {
			bd.IndexBoundaries = bounds()
		}
		bd.DataMode = mode()
		if bd.DataMode == DiskAccessMmap && !opts.DataCompressed {
			bd.DataBoundaries = bounds()
		}
		if err := r.Err(); err != nil {
			return nil, err
		}
		s.Boundaries = bd
	}
	s.TrailingBytes = r.Remaining()
	return s, nil
}

// ReadSummary reads desc's Summary.db; the boundaries trailer is parsed
// when desc's version has one (opts.Boundaries is set from it).
func ReadSummary(fsys FS, desc Descriptor, opts SummaryReadOptions) (*Summary, error) {
	opts.Boundaries = desc.Version.SummaryBoundaries()
	path := desc.Path(ComponentSummary)
	b, err := readWholeFile(fsOrDefault(fsys), path, ComponentSummary, maxSummarySize)
	if err != nil {
		return nil, err
	}
	return ParseSummary(b, path, opts)
}

// Len returns the number of entries.
func (s *Summary) Len() int { return len(s.offsets) }

func (s *Summary) entry(k int) []byte {
	end := uint32(len(s.region))
	if k+1 < len(s.offsets) {
		end = s.offsets[k+1]
	}
	return s.region[s.offsets[k]:end]
}

// Key returns the partition key of entry k.
func (s *Summary) Key(k int) []byte {
	e := s.entry(k)
	return e[:len(e)-8]
}

// IndexPosition returns the Index.db position of entry k.
func (s *Summary) IndexPosition(k int) int64 {
	e := s.entry(k)
	return int64(binary.LittleEndian.Uint64(e[len(e)-8:]))
}

// Floor returns the last entry whose partition sorts at or before key (by
// p's token, then key bytes), or -1 when key sorts before every entry. A
// lookup scans Index.db from IndexPosition(Floor(p, key)) for at most
// MinIndexInterval entries.
func (s *Summary) Floor(p dht.Partitioner, key []byte) int {
	t := p.Token(key)
	i := sort.Search(len(s.offsets), func(k int) bool {
		ek := s.Key(k)
		return dht.ComparePartitions(p.Token(ek), ek, t, key) > 0
	})
	return i - 1
}
