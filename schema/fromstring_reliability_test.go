package schema

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
)

// FuzzTypeFromString parses text as a value of each fuzz type (the string
// form castable dump -k and the CSV loader read): never a panic; a value it
// accepts is valid for its type, renders back with AppendString, and that
// string parses again to a fixed point. Seeds: every string of the
// corpus's expected.json dumps (keys, clusterings, values), read at test
// time, plus a few literals of each form.
func FuzzTypeFromString(f *testing.F) {
	seeds := []string{"", "0", "-1", "1.5e10", "NaN", "true", "0x00ff", "2018-05-03", "12:30:00.5",
		"2018-05-03T22:11:47.816568Z", "127.0.0.1", "::1", "1h2m", "550e8400-e29b-41d4-a716-446655440000",
		"[1, 2]", "{1: 'a'}", "{'a', 'b'}", "(1, 'x')", "{a: 1, B: 'x'}",
		"3f80000040200000c0400000", "0161026263", "0x00017a", "00000001000000020000000300000004"}
	if files, err := filepath.Glob(filepath.Join(testdata.Root(), "cassandra", "3.x", "uncompressed", "*", "expected.json")); err == nil {
		str := regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
		for _, name := range files {
			b, err := os.ReadFile(name)
			if err != nil {
				continue
			}
			for _, m := range str.FindAllSubmatch(b, 200) {
				seeds = append(seeds, string(m[1]))
			}
		}
	}
	// Each literal with every type, each corpus string with three (the
	// fuzzer pairs them further); few seeds keep the baseline pass short.
	seen := map[string]bool{}
	for n, s := range seeds {
		if seen[s] {
			continue
		}
		seen[s] = true
		for i := range fuzzTypes {
			if n < 23 || i%len(fuzzTypes) == n%len(fuzzTypes) || i == (n+7)%len(fuzzTypes) || i == (n+13)%len(fuzzTypes) {
				f.Add(byte(i), s)
			}
		}
	}
	f.Fuzz(func(t *testing.T, which byte, s string) {
		typ := fuzzTypes[int(which)%len(fuzzTypes)]
		v, err := typ.FromString(s)
		if err != nil {
			return
		}
		if err := typ.Validate(v); err != nil {
			t.Fatalf("%s: FromString(%q) = %x, which Validate rejects: %v", typ, s, v, err)
		}
		text, err := typ.AppendString(nil, v)
		if err != nil {
			t.Fatalf("%s: AppendString(%x) from FromString(%q): %v", typ, v, s, err)
		}
		back, err := typ.FromString(string(text))
		if err != nil {
			t.Fatalf("%s: FromString(%q) (from %q): %v", typ, text, s, err)
		}
		text2, err := typ.AppendString(nil, back)
		if err != nil {
			t.Fatalf("%s: AppendString(%x): %v", typ, back, err)
		}
		if again, err := typ.FromString(string(text2)); err != nil || !bytes.Equal(again, back) {
			t.Fatalf("%s: not a fixed point: %q -> %x -> %q -> %x -> %q -> %x (%v)", typ, s, v, text, back, text2, again, err)
		}
	})
}
