package jsondump

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

const benchPartitions = 100_000

// benchData generates a 100k-partition table content: one row per
// partition with an int, a text and a bigint cell, every tenth row expiring,
// every hundredth partition with a range tombstone.
func benchData(b testing.TB) (*schema.Table, []*mutation.Partition) {
	tb := testTable(b, "CREATE TABLE ks.bench (pk int, ck int, a int, b text, c bigint, PRIMARY KEY (pk, ck))")
	a, txt, c := tb.Column("a"), tb.Column("b"), tb.Column("c")
	parts := make([]*mutation.Partition, benchPartitions)
	bl := mutation.NewBuilder(tb)
	for i := range parts {
		key := schema.AppendInt(nil, int32(i))
		bl.Reset(key)
		ts := 1525385507816568 + int64(i)
		bl.StartRow(mutation.Clustering{schema.AppendInt(nil, int32(i%7))})
		l := mutation.LivenessInfo{Timestamp: ts, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
		if i%10 == 0 {
			l.TTL, l.LocalExpirationTime = 3600, 1525389107
		}
		bl.SetLiveness(l)
		for _, cell := range []mutation.Cell{
			{Column: a, Value: schema.AppendInt(nil, int32(i*31))},
			{Column: txt, Value: []byte(fmt.Sprintf("value number %d", i))},
			{Column: c, Value: schema.AppendBigint(nil, int64(i)*1_000_003)},
		} {
			cell.Timestamp, cell.TTL, cell.LocalDeletionTime = ts, l.TTL, l.LocalExpirationTime
			if cell.TTL == mutation.NoTTL {
				cell.LocalDeletionTime = mutation.NoDeletionTime
			}
			bl.AddCell(cell)
		}
		if i%100 == 0 {
			d := mutation.DeletionTime{MarkedForDeleteAt: ts - 1, LocalDeletionTime: 1525385507}
			bl.AddMarker(mutation.RangeTombstoneMarker{Kind: mutation.InclStartBound, Clustering: mutation.Clustering{schema.AppendInt(nil, 10)}, Close: mutation.Live, Open: d})
			bl.AddMarker(mutation.RangeTombstoneMarker{Kind: mutation.InclEndBound, Clustering: mutation.Clustering{schema.AppendInt(nil, 20)}, Close: d, Open: mutation.Live})
		}
		p, err := bl.Finish()
		if err != nil {
			b.Fatal(err)
		}
		parts[i] = p
	}
	return tb, parts
}

var benchFormats = []struct {
	name string
	opts EncodeOptions
}{
	{"format=canonical/layout=pretty", EncodeOptions{Format: FormatCanonical}},
	{"format=canonical/layout=lines", EncodeOptions{Format: FormatCanonical, Layout: LayoutLines}},
	{"format=dump/layout=pretty", EncodeOptions{Format: FormatDump, Now: time.Unix(1600000000, 0)}},
}

func encodeDoc(b testing.TB, tb *schema.Table, parts []*mutation.Partition, w io.Writer, opts EncodeOptions) {
	enc := NewEncoder(w, tb, opts)
	for i, p := range parts {
		if err := enc.Encode(p, int64(i)*60); err != nil {
			b.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		b.Fatal(err)
	}
}

// countingWriter discards output, counting bytes.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

func reportPerPartition(b *testing.B, before runtime.MemStats) {
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	n := float64(b.N) * benchPartitions
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/partition")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/partition")
}

func BenchmarkEncode(b *testing.B) {
	tb, parts := benchData(b)
	for _, f := range benchFormats {
		b.Run(f.name, func(b *testing.B) {
			var cw countingWriter
			encodeDoc(b, tb, parts, &cw, f.opts)
			b.SetBytes(cw.n)
			b.ReportAllocs()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				encodeDoc(b, tb, parts, io.Discard, f.opts)
			}
			reportPerPartition(b, before)
		})
	}
}

// BenchmarkDecode decodes the 100k-partition document into partitions
// (impl=castable) and, as a reference measured in the same run, parses it
// with encoding/json into generic values only (impl=stdlib-any: no
// conversion to the model at all).
func BenchmarkDecode(b *testing.B) {
	tb, parts := benchData(b)
	for _, f := range benchFormats {
		var doc bytes.Buffer
		encodeDoc(b, tb, parts, &doc, f.opts)
		b.Run("impl=castable/"+f.name, func(b *testing.B) {
			b.SetBytes(int64(doc.Len()))
			b.ReportAllocs()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				d := NewDecoder(bytes.NewReader(doc.Bytes()), tb, DecodeOptions{})
				var p mutation.Partition
				n := 0
				for {
					p = mutation.Partition{}
					err := d.Decode(&p)
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n != benchPartitions {
					b.Fatalf("decoded %d partitions", n)
				}
			}
			reportPerPartition(b, before)
		})
		if f.opts.Layout != LayoutLines {
			continue
		}
		b.Run("impl=stdlib-any/"+f.name, func(b *testing.B) {
			b.SetBytes(int64(doc.Len()))
			b.ReportAllocs()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				dec := json.NewDecoder(bytes.NewReader(doc.Bytes()))
				dec.UseNumber()
				n := 0
				for {
					var v any
					if err := dec.Decode(&v); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n != benchPartitions {
					b.Fatalf("parsed %d partitions", n)
				}
			}
			reportPerPartition(b, before)
		})
	}
}

// FuzzDecode feeds arbitrary documents to the decoder for the tables of
// the mc-write corpus (seeded with their small data.json files, read at
// test time). Decoding must not panic; whatever decodes and validates must
// encode, and the canonical encoding must be a fixed point.
func FuzzDecode(f *testing.F) {
	tables := []*schema.Table{testTable(f, "CREATE TABLE ks.t (pk int, ck int, v int, s set<text>, PRIMARY KEY (pk, ck))")}
	root := filepath.Join(testdata.Root(), "mc-write")
	if dirs, err := os.ReadDir(root); err == nil {
		for _, d := range dirs {
			cql, err1 := os.ReadFile(filepath.Join(root, d.Name(), "schema.cql"))
			doc, err2 := os.ReadFile(filepath.Join(root, d.Name(), "data.json"))
			if err1 != nil || err2 != nil || len(doc) > 20000 {
				continue
			}
			tb, err := parseTestTable(string(cql))
			if err != nil {
				continue
			}
			tables = append(tables, tb)
			f.Add(uint8(len(tables)-1), doc)
		}
	}
	f.Add(uint8(0), []byte(`[{"partition": {"key": ["1"]}, "rows": [{"type": "row", "clustering": [2], "cells": [{"name": "v", "value": 3, "tstamp": "2018-05-03T22:11:47.816568Z"}]}]}]`))
	f.Fuzz(func(t *testing.T, which uint8, doc []byte) {
		tb := tables[int(which)%len(tables)]
		parts, pos, err := DecodeAll(bytes.NewReader(doc), tb, DecodeOptions{MaxValueBytes: 1 << 16})
		if err != nil {
			return
		}
		for i, p := range parts {
			if p.Validate(tb) != nil {
				return
			}
			_ = pos[i]
		}
		var out bytes.Buffer
		enc := NewEncoder(&out, tb, EncodeOptions{Format: FormatCanonical})
		for i, p := range parts {
			if err := enc.Encode(p, pos[i]); err != nil {
				t.Fatalf("valid partition does not encode: %v", err)
			}
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		again, err := NormalizeBytes(out.Bytes(), tb)
		if err != nil {
			t.Fatalf("canonical output does not decode: %v\n%s", err, out.Bytes())
		}
		if !bytes.Equal(again, out.Bytes()) {
			t.Fatalf("canonical form is not a fixed point:\n%s\n---\n%s", out.Bytes(), again)
		}
	})
}
