package cql

import (
	"crypto/rand"
	"fmt"
	"time"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// Options control how statements become mutations. The zero value writes
// at the current time.
type Options struct {
	// DefaultTimestamp is the write time (µs since the epoch) of
	// statements without USING TIMESTAMP. 0 means the current time, kept
	// strictly increasing from one statement to the next as a Cassandra
	// coordinator does.
	DefaultTimestamp int64
	// Now is the node's clock: local deletion times and TTL expiry times
	// (seconds) are taken from it, and so are now() and the default list
	// cell paths. The zero value means time.Now() at each statement.
	Now time.Time
	// TimeUUID makes the timeuuid cell paths of list elements: increasing
	// values for appends (prepend false) and decreasing values below every
	// append for prepends (prepend true). Nil uses a generator like
	// Cassandra's (UUIDGen / Lists.PrecisionTime) from Now and a random
	// node.
	TimeUUID func(prepend bool) [16]byte
	// CounterID is the counter id of the shard counter updates write. The
	// zero value means a random id chosen by NewBuilder (as a fresh node
	// would have), so that separately built loads add up when merged.
	CounterID [16]byte
}

// Mutation is what one statement writes: one partition of one table.
type Mutation struct {
	Table     *schema.Table
	Partition *mutation.Partition
}

// Builder turns parsed DML statements into partitions as Cassandra 3.11
// builds them, against a Schema. DDL statements passed to it update the
// schema. A Builder is not safe for concurrent use.
//
// Counter updates (c = c + n) are written as Cassandra's counter write path
// leaves them in an sstable: a context with one global shard whose counter
// id is Options.CounterID, whose clock is max(write timestamp, previous
// clock + 1) and whose count is the running total of this Builder's
// updates to that cell. Merging keeps the shard with the highest clock, so
// the latest context carries the sum.
type Builder struct {
	schema *Schema
	opts   Options

	lastTimestamp int64
	builders      map[*schema.Table]*mutation.Builder
	counterID     [16]byte
	counters      map[string]counterShard

	uuidNode     [8]byte
	lastAppend   int64 // 100 ns ticks of the last append path
	prependMilli int64
	prependTicks int64
}

type counterShard struct{ clock, total int64 }

// NewBuilder returns a builder for statements against s.
func NewBuilder(s *Schema, opts Options) *Builder {
	b := &Builder{schema: s, opts: opts, builders: map[*schema.Table]*mutation.Builder{},
		counters: map[string]counterShard{}, counterID: opts.CounterID}
	if b.counterID == ([16]byte{}) {
		_, _ = rand.Read(b.counterID[:])
		b.counterID[6] = b.counterID[6]&0x0f | 0x40
		b.counterID[8] = b.counterID[8]&0x3f | 0x80
	}
	_, _ = rand.Read(b.uuidNode[:])
	b.uuidNode[0] = b.uuidNode[0]&0x3f | 0x80 // RFC 4122 variant
	b.uuidNode[2] |= 0x01                     // multicast bit: not a real MAC
	return b
}

// Exec parses src and builds the mutations of its DML statements in
// order; DDL statements update the schema.
func (b *Builder) Exec(src string) ([]Mutation, error) {
	stmts, err := ParseStatements(src)
	if err != nil {
		return nil, err
	}
	var out []Mutation
	for _, st := range stmts {
		m, err := b.Build(st)
		if err != nil {
			return nil, err
		}
		if m != nil {
			out = append(out, *m)
		}
	}
	return out, nil
}

// Build returns the partition a DML statement writes, or applies a DDL
// statement to the schema and returns nil.
func (b *Builder) Build(st Statement) (*Mutation, error) {
	switch st := st.(type) {
	case *Insert:
		return b.insert(st)
	case *Update:
		return b.update(st)
	case *Delete:
		return b.delete(st)
	}
	return nil, b.schema.Apply(st)
}

func (b *Builder) nowTime() time.Time {
	if b.opts.Now.IsZero() {
		return time.Now()
	}
	return b.opts.Now
}

// timestamp returns the write time of a statement.
func (b *Builder) timestamp(u Using) int64 {
	if u.HasTimestamp {
		return u.Timestamp
	}
	if b.opts.DefaultTimestamp != 0 {
		return b.opts.DefaultTimestamp
	}
	ts := b.nowTime().UnixMicro()
	if ts <= b.lastTimestamp {
		ts = b.lastTimestamp + 1
	}
	b.lastTimestamp = ts
	return ts
}

// stmt is the state of one statement being built.
type stmt struct {
	t      *schema.Table
	mb     *mutation.Builder
	ts     int64
	ttl    int32
	now    int64 // local deletion time of tombstones (s)
	expiry int64 // local expiration time of expiring data, or NoDeletionTime
	key    []byte
}

func (b *Builder) begin(n Name, u Using, at Pos) (*stmt, error) {
	t, err := b.schema.tableFor(n)
	if err != nil {
		return nil, err
	}
	mb := b.builders[t]
	if mb == nil {
		mb = mutation.NewBuilder(t)
		b.builders[t] = mb
	}
	now := b.nowTime().Unix()
	s := &stmt{t: t, mb: mb, ts: b.timestamp(u), now: now, expiry: mutation.NoDeletionTime}
	switch {
	case u.HasTTL:
		s.ttl = u.TTL
	case t.Options.DefaultTimeToLive > 0:
		s.ttl = int32(t.Options.DefaultTimeToLive)
	}
	if s.ttl > 0 {
		if now+int64(s.ttl) > int64(mutation.NoDeletionTime)-1 {
			return nil, semanticError(at, "TTL %d from now (%d) overflows the local expiration time", s.ttl, now)
		}
		s.expiry = now + int64(s.ttl)
	}
	return s, nil
}

func (s *stmt) deletion(ts int64) mutation.DeletionTime {
	return mutation.DeletionTime{MarkedForDeleteAt: ts, LocalDeletionTime: s.now}
}

// cell is a live (or expiring) cell of the statement.
func (s *stmt) cell(col *schema.Column, path, value []byte) mutation.Cell {
	c := mutation.Cell{Column: col, Path: path, Value: value, Timestamp: s.ts,
		TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}
	if s.ttl > 0 {
		c.TTL, c.LocalDeletionTime = s.ttl, s.expiry
	}
	return c
}

// tombstone is a cell tombstone of the statement.
func (s *stmt) tombstone(col *schema.Column, path []byte) mutation.Cell {
	return mutation.Cell{Column: col, Path: path, Timestamp: s.ts, TTL: mutation.NoTTL, LocalDeletionTime: s.now}
}

func (s *stmt) finish(at Pos) (*Mutation, error) {
	p, err := s.mb.Finish()
	if err != nil {
		return nil, semanticError(at, "%v", err)
	}
	return &Mutation{Table: s.t, Partition: p}, nil
}

// column resolves a column name of the statement's table.
func (s *stmt) column(id Ident) (*schema.Column, error) {
	c := s.t.Column(id.Name)
	if c == nil || c.Hidden {
		return nil, semanticError(id.Pos, "unknown column %s in table %s.%s", id.Name, s.t.Keyspace, s.t.Name)
	}
	return c, nil
}

func (b *Builder) partitionKey(s *stmt, values [][]byte, at Pos) error {
	key, err := s.t.AppendPartitionKey(nil, values)
	if err != nil {
		return semanticError(at, "%v", err)
	}
	if len(key) == 0 {
		return semanticError(at, "the partition key cannot be empty")
	}
	if len(key) > 0xFFFF {
		return semanticError(at, "partition key of %d bytes exceeds 65535", len(key))
	}
	s.key = key
	s.mb.Reset(key)
	return nil
}

// setColumn writes a whole column value (INSERT, UPDATE c = v): a cell or
// a tombstone for a simple column; for a non-frozen collection or UDT the
// overwrite's complex deletion (at timestamp - 1) and one cell per element.
func (b *Builder) setColumn(s *stmt, col *schema.Column, term *Term) error {
	if col.Type.Kind == schema.KindCounter {
		return semanticError(term.Pos, "column %s: cannot set a counter, use %s = %s + n", col.Name, col.Name, col.Name)
	}
	if !col.Type.IsComplex() {
		v, err := b.value(term, col.Type, col.Name)
		if err != nil {
			return err
		}
		if v == nil {
			s.mb.AddCell(s.tombstone(col, nil))
		} else {
			s.mb.AddCell(s.cell(col, nil, v))
		}
		return nil
	}
	s.mb.AddComplexDeletion(col, s.deletion(s.ts-1))
	if term.Kind == TermNull {
		return nil
	}
	return b.addElements(s, col, term, false)
}

// addElements adds one cell per element of a collection or UDT literal.
func (b *Builder) addElements(s *stmt, col *schema.Column, term *Term, prepend bool) error {
	typ := col.Type
	if term.Kind == TermFunction {
		return semanticError(term.Pos, "column %s: a function value cannot set a non-frozen %s", col.Name, typ)
	}
	switch typ.Kind {
	case schema.KindList:
		if term.Kind != TermList {
			return bindError(term, col.Name, "invalid literal %s for a %s", describeTerm(term), typ)
		}
		elems, err := b.elements(term, typ.Params[0], col.Name, 0)
		if err != nil {
			return err
		}
		if prepend {
			for i := len(elems) - 1; i >= 0; i-- {
				u := b.listPath(true)
				s.mb.AddCell(s.cell(col, u[:], elems[i]))
			}
			return nil
		}
		for _, e := range elems {
			u := b.listPath(false)
			s.mb.AddCell(s.cell(col, u[:], e))
		}
	case schema.KindSet:
		if term.Kind != TermSet {
			return bindError(term, col.Name, "invalid literal %s for a %s", describeTerm(term), typ)
		}
		elems, err := b.elements(term, typ.Params[0], col.Name, 0)
		if err != nil {
			return err
		}
		for _, e := range sortUnique(typ.Params[0], elems) {
			s.mb.AddCell(s.cell(col, e, []byte{}))
		}
	case schema.KindMap:
		if term.Kind == TermSet && len(term.Elems) == 0 {
			return nil
		}
		if term.Kind != TermMap {
			return bindError(term, col.Name, "invalid literal %s for a %s", describeTerm(term), typ)
		}
		keys, vals, err := b.mapEntries(term, typ, col.Name, 0)
		if err != nil {
			return err
		}
		for i := range keys {
			s.mb.AddCell(s.cell(col, keys[i], vals[i]))
		}
	case schema.KindUDT:
		if term.Kind == TermSet && len(term.Elems) == 0 {
			return nil
		}
		if term.Kind != TermMap {
			return bindError(term, col.Name, "invalid literal %s for a %s", describeTerm(term), typ)
		}
		fields, err := b.udtFields(term, typ, col.Name, 0)
		if err != nil {
			return err
		}
		for i, f := range fields {
			if f != nil {
				s.mb.AddCell(s.cell(col, schema.AppendFieldIndex(nil, i), f))
			}
		}
	}
	return nil
}

// listPath returns the next list cell path.
func (b *Builder) listPath(prepend bool) [16]byte {
	if b.opts.TimeUUID != nil {
		return b.opts.TimeUUID(prepend)
	}
	return b.timeUUID(b.nowTime().UnixMilli(), prepend)
}

// prependReference is Lists.PrecisionTime.REFERENCE_TIME (2010-01-01):
// prepended list elements get times mirrored below it.
const prependReference = 1262304000000

// timeUUID generates version 1 UUIDs like Cassandra: appends strictly
// increase from the current time in 100 ns ticks; prepends decrease from
// the current time mirrored around 2010-01-01 (PrecisionTime), so they
// sort before every appended element.
func (b *Builder) timeUUID(nowMs int64, prepend bool) [16]byte {
	if prepend {
		ms := prependReference - (nowMs - prependReference)
		if ms != b.prependMilli || b.prependTicks <= 0 {
			if ms >= b.prependMilli && b.prependMilli != 0 {
				ms = b.prependMilli - 1
			}
			b.prependMilli, b.prependTicks = ms, 10_000
		}
		b.prependTicks--
		return makeTimeUUID(b.prependMilli, b.prependTicks, b.uuidNode)
	}
	ticks := nowMs * 10_000
	if ticks <= b.lastAppend {
		ticks = b.lastAppend + 1
	}
	b.lastAppend = ticks
	return makeTimeUUID(floorDiv(ticks, 10_000), ticks-floorDiv(ticks, 10_000)*10_000, b.uuidNode)
}

// counterUpdate adds delta to a counter cell.
func (b *Builder) counterUpdate(s *stmt, col *schema.Column, clustering [][]byte, term *Term) error {
	v, err := b.value(term, schema.Bigint, col.Name)
	if err != nil {
		return err
	}
	if v == nil {
		return semanticError(term.Pos, "column %s: invalid null counter increment", col.Name)
	}
	delta := int64(0)
	for _, c := range v {
		delta = delta<<8 | int64(c)
	}
	return b.counterAdd(s, col, clustering, delta)
}

func (b *Builder) counterAdd(s *stmt, col *schema.Column, clustering [][]byte, delta int64) error {
	id := fmt.Sprintf("%s.%s\x00%x\x00%q\x00%s", s.t.Keyspace, s.t.Name, s.key, clustering, col.Name)
	prev := b.counters[id]
	shard := counterShard{clock: max(s.ts, prev.clock+1), total: prev.total + delta}
	b.counters[id] = shard
	ctx, err := mutation.AppendCounterContext(nil, []mutation.CounterShard{{ID: b.counterID, Clock: shard.clock, Count: shard.total, Kind: mutation.CounterGlobal}})
	if err != nil {
		return err
	}
	s.mb.AddCell(mutation.Cell{Column: col, Value: ctx, Timestamp: s.ts, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime})
	return nil
}
