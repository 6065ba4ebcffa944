package jsondump

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func encodeAll(t testing.TB, c corpusCase, parts []*mutation.Partition, pos []int64, opts EncodeOptions) []byte {
	t.Helper()
	var out bytes.Buffer
	enc := NewEncoder(&out, c.table, opts)
	for i, p := range parts {
		if err := enc.Encode(p, pos[i]); err != nil {
			t.Fatalf("%s: encode: %v", c.name, err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatalf("%s: close: %v", c.name, err)
	}
	return out.Bytes()
}

// checkCorpusCase decodes a corpus document, validates it, checks partition
// order (which checks key encoding and tokens), and round-trips it through
// every format and layout.
func checkCorpusCase(t *testing.T, c corpusCase, sorted bool) {
	doc := readFile(t, c.json)
	parts, pos, err := DecodeAll(bytes.NewReader(doc), c.table, DecodeOptions{})
	if err != nil {
		t.Fatalf("%s: decode: %v", c.name, err)
	}
	if len(parts) == 0 {
		t.Fatalf("%s: no partitions", c.name)
	}
	for i, p := range parts {
		if err := p.Validate(c.table); err != nil {
			t.Fatalf("%s: partition %d: %v", c.name, i, err)
		}
		if !p.Token.Equal(dht.Murmur3.Token(p.Key)) {
			t.Fatalf("%s: token", c.name)
		}
		if pos[i] < 0 {
			t.Fatalf("%s: partition %d has no position", c.name, i)
		}
		if sorted && i > 0 && dht.ComparePartitions(parts[i-1].Token, parts[i-1].Key, p.Token, p.Key) >= 0 {
			t.Fatalf("%s: partitions %d and %d out of token order: the key encoding or token is wrong", c.name, i-1, i)
		}
	}
	now := time.Unix(1600000000, 0)
	forms := []EncodeOptions{
		{Format: FormatCanonical},
		{Format: FormatCanonical, Layout: LayoutLines},
		{Format: FormatDump, Now: now},
		{Format: FormatRaw, Layout: LayoutCompact, Now: now},
	}
	if len(parts) > 1000 {
		// Large documents: the corpus is canonical, so the canonical
		// encoding must equal it apart from whitespace (cheaper than Diff).
		out := encodeAll(t, c, parts, pos, EncodeOptions{Format: FormatCanonical, Layout: LayoutLines})
		if squeeze(out) != strings.TrimSuffix(strings.TrimPrefix(strings.ReplaceAll(squeeze(doc), "},{\"partition\"", "}{\"partition\""), "["), "]") {
			t.Fatalf("%s: canonical re-encoding differs from the document", c.name)
		}
		return
	}
	for _, o := range forms {
		out := encodeAll(t, c, parts, pos, o)
		d, err := DiffBytes(c.table, doc, out, DiffOptions{ComparePositions: true})
		if err != nil {
			t.Fatalf("%s: format %d layout %d: %v\n%s", c.name, o.Format, o.Layout, err, head(out))
		}
		if d != "" {
			t.Fatalf("%s: format %d layout %d: round trip differs: %s\n%s", c.name, o.Format, o.Layout, d, head(out))
		}
	}
	// The canonical encoding of the canonical corpus is stable: encoding
	// the decoded canonical output again gives the same bytes.
	canon := encodeAll(t, c, parts, pos, EncodeOptions{Format: FormatCanonical})
	parts2, pos2, err := DecodeAll(bytes.NewReader(canon), c.table, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again := encodeAll(t, c, parts2, pos2, EncodeOptions{Format: FormatCanonical}); !bytes.Equal(again, canon) {
		t.Fatalf("%s: canonical encoding not stable", c.name)
	}
}

func head(b []byte) string {
	if len(b) > 3000 {
		return string(b[:3000]) + "..."
	}
	return string(b)
}

func TestCorpusDataJSONRoundTrip(t *testing.T) {
	for _, c := range mcWriteCases(t) {
		t.Run(c.name, func(t *testing.T) { checkCorpusCase(t, c, true) })
	}
}

func TestCassandraExpectedJSONLoads(t *testing.T) {
	for _, c := range expectedCases(t) {
		t.Run(c.name, func(t *testing.T) { checkCorpusCase(t, c, true) })
	}
}

// The canonical corpus must also normalize to itself, whitespace aside:
// canonical output of a canonical document differs from it only in layout.
func TestNormalizeCanonicalCorpus(t *testing.T) {
	for _, c := range mcWriteCases(t) {
		if strings.Contains(c.name, "many_") {
			continue
		}
		doc := readFile(t, c.json)
		out, err := NormalizeBytes(doc, c.table)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if squeeze(out) != squeeze(doc) {
			t.Errorf("%s: normalized text differs beyond whitespace:\n%s\nvs\n%s", c.name, squeeze(out), squeeze(doc))
		}
	}
}

// squeeze removes JSON whitespace outside strings.
func squeeze(b []byte) string {
	var out []byte
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if in {
			out = append(out, c)
			if c == '\\' && i+1 < len(b) {
				i++
				out = append(out, b[i])
			} else if c == '"' {
				in = false
			}
			continue
		}
		switch c {
		case ' ', '\n', '\t', '\r':
		case '"':
			in = true
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return string(out)
}

// TestDumpFormatExample checks the sstabledump rendering of json-format.md
// §2.4's example (ttled_row): ISO times, tstamp and ttl omitted on a cell
// that shares the row's, "expired" computed.
func TestDumpFormatExample(t *testing.T) {
	var c corpusCase
	for _, x := range mcWriteCases(t) {
		if x.name == "ttled_row" {
			c = x
		}
	}
	parts, pos, err := DecodeAll(bytes.NewReader(readFile(t, c.json)), c.table, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := encodeAll(t, c, parts, pos, EncodeOptions{Format: FormatDump, Layout: LayoutCompact, Now: time.Unix(1600000000, 0)})
	want := `[{"partition":{"key":["1"],"position":0},"rows":[{"type":"row","clustering":[2],` +
		`"liveness_info":{"tstamp":"2018-05-03T22:11:47.816568Z","ttl":1135,"expires_at":"2018-12-04T06:37:46Z","expired":true},` +
		`"cells":[{"name":"rc","value":3}]}]}]` + "\n"
	if string(out) != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	raw := encodeAll(t, c, parts, pos, EncodeOptions{Format: FormatRaw, Layout: LayoutCompact, Now: time.Unix(1500000000, 0)})
	if !strings.Contains(string(raw), `"liveness_info":{"tstamp":"1525385507816568","ttl":1135,"expires_at":"1543905466","expired":false}`) {
		t.Fatalf("raw form: %s", raw)
	}
	// The sstabledump text of the example decodes to the canonical form.
	dump := `[ { "partition" : { "key" : [ "1" ], "position" : 0 },
    "rows" : [ { "type" : "row", "position": 33,
                 "clustering" : [ 2 ],
                 "liveness_info" : { "tstamp" : "2018-05-03T22:11:47.816568Z", "ttl" : 1135,
                                     "expires_at" : "2018-12-04T06:37:46Z", "expired" : true },
                 "cells" : [ { "name" : "rc", "value" : 3 } ] } ] } ]`
	d, err := DiffBytes(c.table, []byte(dump), readFile(t, c.json), DiffOptions{ComparePositions: true})
	if err != nil || d != "" {
		t.Fatalf("sstabledump form vs canonical: %q %v", d, err)
	}
}

func TestKeysOnly(t *testing.T) {
	var c corpusCase
	for _, x := range mcWriteCases(t) {
		if x.name == "composite_partition_key" {
			c = x
		}
	}
	parts, pos, err := DecodeAll(bytes.NewReader(readFile(t, c.json)), c.table, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := encodeAll(t, c, parts, pos, EncodeOptions{KeysOnly: true, Layout: LayoutCompact})
	if string(out) != `[["1","hello","true"]]`+"\n" {
		t.Fatalf("keys only: %s", out)
	}
	out = encodeAll(t, c, append(parts, parts...), append(pos, pos...), EncodeOptions{KeysOnly: true, Layout: LayoutLines})
	if string(out) != `["1","hello","true"]`+"\n"+`["1","hello","true"]`+"\n" {
		t.Fatalf("keys only lines: %s", out)
	}
}

// TestStreamingRows reads many_range_tombstones row by row and checks the
// markers alternate, then reads a document whose rows come before its
// partition header.
func TestStreamingRows(t *testing.T) {
	var c corpusCase
	for _, x := range mcWriteCases(t) {
		if x.name == "many_range_tombstones" {
			c = x
		}
	}
	f, err := os.Open(c.json)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := NewDecoder(f, c.table, DecodeOptions{})
	var p mutation.Partition
	var u Unfiltered
	partitions, markers := 0, 0
	for {
		err := d.NextPartition(&p)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		partitions++
		open := false
		for {
			err := d.NextUnfiltered(&u)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if u.Kind != Marker {
				continue
			}
			markers++
			if u.Marker.Kind.IsStart() == open && !u.Marker.Kind.IsBoundary() {
				t.Fatalf("marker %d does not alternate", markers)
			}
			open = u.Marker.Kind.IsStart()
		}
	}
	if partitions == 0 || markers < 100 {
		t.Fatalf("%d partitions, %d markers", partitions, markers)
	}

	// Rows before "partition", unknown fields, JSON Lines, and a partition
	// left half read.
	tb := mcWriteTable(t, "multiple_rows")
	doc := `{"rows": [{"type": "row", "clustering": [1], "cells": [{"name": "rc1", "value": 10, "tstamp": 5}]}], "extra": {"x": [1]}, "partition": {"key": ["0"]}}
{"partition": {"key": ["1"], "position": 99}, "rows": [{"type": "row", "clustering": [1], "cells": []}, {"type": "row", "clustering": [2], "cells": []}], "z": 1}
{"partition": {"key": ["2"]}, "rows": []}
`
	d = NewDecoder(strings.NewReader(doc), tb, DecodeOptions{})
	if err := d.Decode(&p); err != nil || len(p.Rows) != 1 || p.Rows[0].Cells[0].Timestamp != 5 || d.Position() != -1 {
		t.Fatalf("rows first: %v %+v", err, p)
	}
	if err := d.NextPartition(&p); err != nil || d.Position() != 99 {
		t.Fatalf("second: %v", err)
	}
	if err := d.NextUnfiltered(&u); err != nil || u.Kind != ClusteringRow {
		t.Fatalf("first row of second: %v", err)
	}
	// Skip the rest of the second partition.
	if err := d.Decode(&p); err != nil || len(p.Rows) != 0 {
		t.Fatalf("third: %v %+v", err, p)
	}
	if err := d.Decode(&p); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
	if err := d.Decode(&p); err != io.EOF {
		t.Fatalf("after end: %v", err)
	}
	// An empty array and an empty input.
	for _, empty := range []string{"[]", " [ ]\n", ""} {
		if err := NewDecoder(strings.NewReader(empty), tb, DecodeOptions{}).Decode(&p); err != io.EOF {
			t.Fatalf("%q: %v", empty, err)
		}
	}
}

func mcWriteTable(t testing.TB, name string) *schema.Table {
	for _, x := range mcWriteCases(t) {
		if x.name == name {
			return x.table
		}
	}
	t.Fatalf("no case %s", name)
	return nil
}
