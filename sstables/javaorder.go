package sstables

import (
	"slices"
	"unicode/utf16"
)

// javaHashMapOrder returns the keys of m in the order a java.util.HashMap
// (Java 8) holding them iterates: by bucket (hash ^ hash>>>16) masked with
// the table size, where the table starts at 16 and doubles whenever the
// entry count exceeds 3/4 of it. Keys that share a bucket keep insertion
// order in Java; here they are taken in sorted order. Cassandra writes the
// compressor options of CompressionInfo.db in this order, which only
// matters for two or more options.
func javaHashMapOrder(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	size := 16
	for len(keys) > size*3/4 {
		size *= 2
	}
	bucket := func(k string) int {
		h := javaStringHash(k)
		return int((h ^ h>>16) & uint32(size-1))
	}
	slices.SortStableFunc(keys, func(a, b string) int { return bucket(a) - bucket(b) })
	return keys
}

// javaStringHash is java.lang.String.hashCode: s[0]·31^(n-1) + … + s[n-1]
// over the UTF-16 code units, with int overflow.
func javaStringHash(s string) uint32 {
	var h uint32
	for _, r := range s {
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			h = 31*h + uint32(hi)
			h = 31*h + uint32(lo)
			continue
		}
		h = 31*h + uint32(r)
	}
	return h
}
