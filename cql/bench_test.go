package cql

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkInsertStatement measures building a partition from CQL text:
// one INSERT of (pk int, value blob) with a 100-byte value, parsed and
// bound per operation (the convenience path; the memtable hot path uses the
// schema (dst, ...) serializers directly, see schema.BenchmarkBuildCells).
func BenchmarkInsertStatement(b *testing.B) {
	s, err := ParseSchema("CREATE TABLE ks.t (pk int PRIMARY KEY, value blob)")
	if err != nil {
		b.Fatal(err)
	}
	bld := NewBuilder(s, Options{Now: time.Unix(testNow, 0), DefaultTimestamp: testTS})
	blob := "0x" + strings.Repeat("ab", 100)
	b.Run("impl=cql/size=100", func(b *testing.B) {
		b.SetBytes(104)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			st, err := ParseStatement("INSERT INTO ks.t (pk, value) VALUES (" + strconv.Itoa(i) + ", " + blob + ")")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := bld.Build(st); err != nil {
				b.Fatal(err)
			}
		}
	})
}
