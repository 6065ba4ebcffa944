package mutation

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Counter context: the value of a counter cell (Cassandra's CounterContext).
// All integers are big-endian.
//
//	i16 H            number of header entries; Cassandra reads |H| (a negative
//	                 H marks a context whose local shards are to be cleared)
//	i16 × |H|        one entry per global or local shard, in shard order:
//	                 e <  0: shard e+32768 is global
//	                 e >= 0: shard e is local
//	shard × n        16-byte counter id, i64 clock, i64 count,
//	                 sorted by counter id (unsigned bytes)
//
// Shards the header does not name are remote. Cassandra 2.1 and later write
// only global shards; local and remote shards are "legacy".
const (
	counterHeaderSizeLen = 2
	counterHeaderEltLen  = 2
	counterIDLen         = 16
	counterShardLen      = counterIDLen + 8 + 8
	// MaxCounterShards is the most shards a context's i16 header can name.
	MaxCounterShards = math.MaxInt16
)

// CounterShardKind says how a counter context names a shard.
type CounterShardKind uint8

// The shard kinds.
const (
	// CounterGlobal is a shard named by a negative header entry (the only
	// kind current Cassandra writes).
	CounterGlobal CounterShardKind = iota
	// CounterLocal is a legacy shard named by a non-negative header entry.
	CounterLocal
	// CounterRemote is a legacy shard the header does not name.
	CounterRemote
)

// String returns "global", "local" or "remote" (the counter_shards "kind").
func (k CounterShardKind) String() string {
	switch k {
	case CounterGlobal:
		return "global"
	case CounterLocal:
		return "local"
	case CounterRemote:
		return "remote"
	}
	return fmt.Sprintf("CounterShardKind(%d)", uint8(k))
}

// ParseCounterShardKind parses the String form of a shard kind.
func ParseCounterShardKind(s string) (CounterShardKind, error) {
	switch s {
	case "global":
		return CounterGlobal, nil
	case "local":
		return CounterLocal, nil
	case "remote":
		return CounterRemote, nil
	}
	return 0, fmt.Errorf("unknown counter shard kind %q (want global, local or remote)", s)
}

// CounterShard is one (counter id, clock, count) triple of a context.
type CounterShard struct {
	ID    [16]byte
	Clock int64
	Count int64
	Kind  CounterShardKind
}

// ErrBadCounterContext is matched (errors.Is) by every malformed-context
// error.
var ErrBadCounterContext = errors.New("malformed counter context")

func badContext(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadCounterContext, fmt.Sprintf(format, args...))
}

// counterHeaderLength returns the byte length of v's header, checking it
// fits v and that the body is a whole number of shards.
func counterHeaderLength(v []byte) (int, error) {
	if len(v) < counterHeaderSizeLen {
		return 0, badContext("%d bytes, shorter than the 2-byte header count", len(v))
	}
	h := int(int16(binary.BigEndian.Uint16(v)))
	if h < 0 {
		h = -h
	}
	n := counterHeaderSizeLen + h*counterHeaderEltLen
	if n > len(v) {
		return 0, badContext("header of %d entries needs %d bytes, context has %d", h, n, len(v))
	}
	if (len(v)-n)%counterShardLen != 0 {
		return 0, badContext("body of %d bytes is not a multiple of %d-byte shards", len(v)-n, counterShardLen)
	}
	return n, nil
}

// counterState walks a context shard by shard, attributing kinds the way
// Cassandra's ContextState does: the next unread header entry names the
// current shard if it equals its index (local) or index-32768 (global).
type counterState struct {
	v         []byte
	headerEnd int
	headerOff int
	bodyOff   int
	kind      CounterShardKind
}

func newCounterState(v []byte) (counterState, error) {
	n, err := counterHeaderLength(v)
	if err != nil {
		return counterState{}, err
	}
	s := counterState{v: v, headerEnd: n, headerOff: counterHeaderSizeLen, bodyOff: n}
	s.updateKind()
	return s, nil
}

func (s *counterState) index() int { return (s.bodyOff - s.headerEnd) / counterShardLen }

func (s *counterState) updateKind() {
	s.kind = CounterRemote
	if s.headerOff >= s.headerEnd {
		return
	}
	e := int(int16(binary.BigEndian.Uint16(s.v[s.headerOff:])))
	switch i := s.index(); e {
	case i + math.MinInt16:
		s.kind = CounterGlobal
	case i:
		s.kind = CounterLocal
	}
}

func (s *counterState) hasRemaining() bool { return s.bodyOff < len(s.v) }

func (s *counterState) next() {
	s.bodyOff += counterShardLen
	if s.kind != CounterRemote {
		s.headerOff += counterHeaderEltLen
	}
	s.updateKind()
}

func (s *counterState) id() []byte { return s.v[s.bodyOff : s.bodyOff+counterIDLen] }

func (s *counterState) clock() int64 {
	return int64(binary.BigEndian.Uint64(s.v[s.bodyOff+counterIDLen:]))
}

func (s *counterState) count() int64 {
	return int64(binary.BigEndian.Uint64(s.v[s.bodyOff+counterIDLen+8:]))
}

func (s *counterState) shard() CounterShard {
	var sh CounterShard
	copy(sh.ID[:], s.id())
	sh.Clock, sh.Count, sh.Kind = s.clock(), s.count(), s.kind
	return sh
}

// checkEnd reports header entries that named no shard.
func (s *counterState) checkEnd() error {
	if s.headerOff < s.headerEnd {
		return badContext("header entry %d does not name a shard in order",
			(s.headerOff-counterHeaderSizeLen)/counterHeaderEltLen)
	}
	return nil
}

// walkCounterContext checks v's sizes and header attribution and returns a
// state positioned on its first shard.
func walkCounterContext(v []byte) (counterState, error) {
	s, err := newCounterState(v)
	if err != nil {
		return s, err
	}
	for w := s; ; w.next() {
		if !w.hasRemaining() {
			return s, w.checkEnd()
		}
	}
}

// ParseCounterContext decodes a counter context into its shards.
func ParseCounterContext(v []byte) ([]CounterShard, error) {
	return AppendCounterShards(nil, v)
}

// AppendCounterShards appends the shards of context v to dst.
func AppendCounterShards(dst []CounterShard, v []byte) ([]CounterShard, error) {
	s, err := newCounterState(v)
	if err != nil {
		return dst, err
	}
	for ; s.hasRemaining(); s.next() {
		dst = append(dst, s.shard())
	}
	return dst, s.checkEnd()
}

// ValidateCounterContext checks that v is a well-formed context: sizes,
// header entries naming shards in order, and counter ids strictly
// increasing.
func ValidateCounterContext(v []byte) error {
	s, err := newCounterState(v)
	if err != nil {
		return err
	}
	var prev []byte
	for ; s.hasRemaining(); s.next() {
		if prev != nil && bytes.Compare(prev, s.id()) >= 0 {
			return badContext("shard %d: counter ids not strictly increasing", s.index())
		}
		prev = s.id()
	}
	return s.checkEnd()
}

// AppendCounterContext appends the context holding shards to dst. Shards
// must be sorted by counter id (unsigned bytes) without duplicates; at most
// MaxCounterShards may be global or local.
func AppendCounterContext(dst []byte, shards []CounterShard) ([]byte, error) {
	named := 0
	for i := range shards {
		if i > 0 && bytes.Compare(shards[i-1].ID[:], shards[i].ID[:]) >= 0 {
			return dst, badContext("shard %d: counter ids must be strictly increasing", i)
		}
		switch shards[i].Kind {
		case CounterGlobal, CounterLocal:
			named++
		case CounterRemote:
		default:
			return dst, badContext("shard %d: invalid kind %d", i, shards[i].Kind)
		}
	}
	if named > MaxCounterShards || len(shards) > MaxCounterShards {
		return dst, badContext("%d shards exceed the header's limit of %d", len(shards), MaxCounterShards)
	}
	dst = binary.BigEndian.AppendUint16(dst, uint16(named))
	for i := range shards {
		switch shards[i].Kind {
		case CounterGlobal:
			dst = binary.BigEndian.AppendUint16(dst, uint16(int16(i+math.MinInt16)))
		case CounterLocal:
			dst = binary.BigEndian.AppendUint16(dst, uint16(i))
		}
	}
	for i := range shards {
		dst = append(dst, shards[i].ID[:]...)
		dst = binary.BigEndian.AppendUint64(dst, uint64(shards[i].Clock))
		dst = binary.BigEndian.AppendUint64(dst, uint64(shards[i].Count))
	}
	return dst, nil
}

// CounterTotal is the counter's value: the sum of the shard counts (wrapping
// like Java's long).
func CounterTotal(v []byte) (int64, error) {
	n, err := counterHeaderLength(v)
	if err != nil {
		return 0, err
	}
	var total int64
	for off := n; off < len(v); off += counterShardLen {
		total += int64(binary.BigEndian.Uint64(v[off+counterIDLen+8:]))
	}
	return total, nil
}

// HasLegacyShards reports whether context v has local or remote shards
// (Statistics' hasLegacyCounterShards), as CounterContext.hasLegacyShards.
func HasLegacyShards(v []byte) (bool, error) {
	n, err := counterHeaderLength(v)
	if err != nil {
		return false, err
	}
	total := (len(v) - n) / counterShardLen
	named := (n - counterHeaderSizeLen) / counterHeaderEltLen
	if named < total {
		return true, nil
	}
	for off := counterHeaderSizeLen; off < n; off += counterHeaderEltLen {
		if int16(binary.BigEndian.Uint16(v[off:])) >= 0 {
			return true, nil
		}
	}
	return false, nil
}

// Which input a counter merge returned.
const (
	mergedNew   = 0
	mergedLeft  = 1
	mergedRight = 2
)

type counterRelation int8

const (
	counterEqual counterRelation = iota
	counterGreater
	counterLess
	counterDisjoint
)

// compareShards decides which of two shards with the same counter id wins
// (CounterContext.compare).
func compareShards(l, r *counterState) counterRelation {
	lc, rc := l.clock(), r.clock()
	ln, rn := l.count(), r.count()
	byCount := func() counterRelation {
		switch {
		case ln > rn:
			return counterGreater
		case ln == rn:
			return counterEqual
		}
		return counterLess
	}
	if l.kind == CounterGlobal || r.kind == CounterGlobal {
		if l.kind == CounterGlobal && r.kind == CounterGlobal {
			if lc == rc {
				return byCount()
			}
			if lc > rc {
				return counterGreater
			}
			return counterLess
		}
		if l.kind == CounterGlobal {
			return counterGreater
		}
		return counterLess
	}
	if l.kind == CounterLocal || r.kind == CounterLocal {
		if l.kind == CounterLocal && r.kind == CounterLocal {
			return counterDisjoint
		}
		if l.kind == CounterLocal {
			return counterGreater
		}
		return counterLess
	}
	if lc == rc {
		return byCount()
	}
	// Remote shards: a negative clock marks a deleted shard, which wins.
	if (lc >= 0 && rc > 0 && lc >= rc) || (lc < 0 && (rc > 0 || lc < rc)) {
		return counterGreater
	}
	return counterLess
}

// MergeCounterContexts merges two counter contexts as Cassandra's
// CounterContext.merge: shards by counter id, the winner per id decided by
// kind (global over local over remote), then clock, then count; two local
// shards add up. When one input already holds the result it is returned as
// is (not copied).
func MergeCounterContexts(a, b []byte) ([]byte, error) {
	v, _, err := mergeCounterContexts(a, b)
	return v, err
}

func mergeCounterContexts(a, b []byte) ([]byte, int, error) {
	l, err := walkCounterContext(a)
	if err != nil {
		return nil, 0, err
	}
	r, err := walkCounterContext(b)
	if err != nil {
		return nil, 0, err
	}
	leftSuper, rightSuper := true, true
	named, total := 0, 0
	count := func(s *counterState) {
		total++
		if s.kind != CounterRemote {
			named++
		}
	}
	for l.hasRemaining() && r.hasRemaining() {
		switch c := bytes.Compare(l.id(), r.id()); {
		case c == 0:
			switch compareShards(&l, &r) {
			case counterGreater:
				rightSuper = false
			case counterLess:
				leftSuper = false
			case counterDisjoint:
				leftSuper, rightSuper = false, false
			}
			// The merged shard keeps the stronger kind.
			if l.kind == CounterGlobal || r.kind == CounterGlobal || l.kind == CounterLocal || r.kind == CounterLocal {
				named++
			}
			total++
			l.next()
			r.next()
		case c > 0:
			leftSuper = false
			count(&r)
			r.next()
		default:
			rightSuper = false
			count(&l)
			l.next()
		}
	}
	if l.hasRemaining() {
		rightSuper = false
	} else if r.hasRemaining() {
		leftSuper = false
	}
	if leftSuper {
		return a, mergedLeft, nil
	}
	if rightSuper {
		return b, mergedRight, nil
	}
	for ; l.hasRemaining(); l.next() {
		count(&l)
	}
	for ; r.hasRemaining(); r.next() {
		count(&r)
	}
	if named > MaxCounterShards || total > MaxCounterShards {
		return nil, 0, badContext("merged context of %d shards exceeds the header's limit", total)
	}

	headerEnd := counterHeaderSizeLen + named*counterHeaderEltLen
	out := make([]byte, headerEnd+total*counterShardLen)
	binary.BigEndian.PutUint16(out, uint16(named))
	w := counterWriter{v: out, headerOff: counterHeaderSizeLen, bodyOff: headerEnd, headerEnd: headerEnd}
	l, _ = newCounterState(a)
	r, _ = newCounterState(b)
	for l.hasRemaining() && r.hasRemaining() {
		switch c := bytes.Compare(l.id(), r.id()); {
		case c == 0:
			switch compareShards(&l, &r) {
			case counterDisjoint:
				w.write(l.id(), l.clock()+r.clock(), l.count()+r.count(), CounterLocal)
			case counterGreater:
				w.copy(&l)
			default:
				w.copy(&r)
			}
			l.next()
			r.next()
		case c > 0:
			w.copy(&r)
			r.next()
		default:
			w.copy(&l)
			l.next()
		}
	}
	for ; l.hasRemaining(); l.next() {
		w.copy(&l)
	}
	for ; r.hasRemaining(); r.next() {
		w.copy(&r)
	}
	return out, mergedNew, nil
}

type counterWriter struct {
	v                             []byte
	headerOff, bodyOff, headerEnd int
}

func (w *counterWriter) copy(s *counterState) { w.write(s.id(), s.clock(), s.count(), s.kind) }

func (w *counterWriter) write(id []byte, clock, count int64, kind CounterShardKind) {
	idx := (w.bodyOff - w.headerEnd) / counterShardLen
	switch kind {
	case CounterGlobal:
		binary.BigEndian.PutUint16(w.v[w.headerOff:], uint16(int16(idx+math.MinInt16)))
		w.headerOff += counterHeaderEltLen
	case CounterLocal:
		binary.BigEndian.PutUint16(w.v[w.headerOff:], uint16(idx))
		w.headerOff += counterHeaderEltLen
	}
	copy(w.v[w.bodyOff:], id)
	binary.BigEndian.PutUint64(w.v[w.bodyOff+counterIDLen:], uint64(clock))
	binary.BigEndian.PutUint64(w.v[w.bodyOff+counterIDLen+8:], uint64(count))
	w.bodyOff += counterShardLen
}
