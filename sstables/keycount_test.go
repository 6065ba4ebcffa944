package sstables

import (
	"errors"
	"math"
	"testing"
)

// keyCountInput wraps a serialized sketch as an input read from a file.
func keyCountInput(path string, sketch []byte, estimated int64) KeyCountInput {
	return KeyCountInput{Path: path, Statistics: &Statistics{Cardinality: sketch, CardinalityOffset: 100}, EstimatedKeys: estimated}
}

// TestApproximateKeyCountRules walks getApproximateKeyCount's paths in
// both releases: the merged estimate, each fallback and each failure.
func TestApproximateKeyCountRules(t *testing.T) {
	a := hllOf(1, 0, 1000).AppendTo(nil)
	b := hllOf(1, 500, 1000).AppendTo(nil)
	one := hllOf(1, 0, 1000).Cardinality()
	union := MergeHyperLogLogs(hllOf(1, 0, 1000), hllOf(1, 500, 1000)).Cardinality()
	truncated := a[:len(a)-2]
	longVarint := []byte{0xff, 0xff, 0xff, 0xfe, 0x8d, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 25, 1, 0}
	p12 := hllSerialize(12, 25, false, nil, []int32{2, 4})
	p13sp20 := hllSerialize(13, 20, false, nil, []int32{2, 4})
	scylla := hllSerialize(4, 0, true, []int32{0x01020304, 0x05060708, 0x090a0b0c, 0x0d0e0f10}, nil)
	noSketch := KeyCountInput{Path: "none", Statistics: &Statistics{}, EstimatedKeys: 7}
	noStats := KeyCountInput{Path: "nostats", EstimatedKeys: 11}
	const corrupt, fail = -2, -3 // want markers: a CorruptionError; another error
	for _, c := range []struct {
		name       string
		in         []KeyCountInput
		v311, v50  int64
		failOffset int64
	}{
		{name: "none", v311: -1, v50: -1},
		{name: "one", in: []KeyCountInput{keyCountInput("a", a, 128)}, v311: one, v50: one},
		{name: "two", in: []KeyCountInput{keyCountInput("a", a, 128), keyCountInput("b", b, 256)}, v311: union, v50: union},
		{name: "no COMPACTION", in: []KeyCountInput{keyCountInput("a", a, 128), noSketch}, v311: -1 + 128 + 7, v50: 128 + 7},
		{name: "no Statistics.db", in: []KeyCountInput{noStats}, v311: 10, v50: 11},
		{name: "truncated", in: []KeyCountInput{keyCountInput("a", a, 128), keyCountInput("t", truncated, 256)}, v311: 383, v50: corrupt, failOffset: -1},
		{name: "empty", in: []KeyCountInput{keyCountInput("e", []byte{}, 5)}, v311: 4, v50: corrupt, failOffset: 100},
		{name: "runtime", in: []KeyCountInput{keyCountInput("v", longVarint, 5)}, v311: corrupt, v50: corrupt, failOffset: 104},
		{name: "missing before corrupt", in: []KeyCountInput{noSketch, keyCountInput("v", longVarint, 5)}, v311: 11, v50: 12},
		{name: "corrupt before missing", in: []KeyCountInput{keyCountInput("v", longVarint, 5), noSketch}, v311: corrupt, v50: corrupt, failOffset: 104},
		{name: "merge fails", in: []KeyCountInput{keyCountInput("a", a, 128), keyCountInput("p12", p12, 3)}, v311: 130, v50: 131},
		{name: "merge fails first", in: []KeyCountInput{keyCountInput("p12", p12, 3), keyCountInput("a", a, 128)}, v311: 130, v50: 131},
		{name: "unmodeled alone", in: []KeyCountInput{keyCountInput("sp20", p13sp20, 3)}, v311: fail, v50: fail},
		{name: "unmodeled merged", in: []KeyCountInput{keyCountInput("a", a, 128), keyCountInput("sp20", p13sp20, 3)}, v311: fail, v50: fail},
		{name: "ScyllaDB alone", in: []KeyCountInput{keyCountInput("s", scylla, 128)}, v311: 56, v50: 56},
		{name: "ScyllaDB merged", in: []KeyCountInput{keyCountInput("s", scylla, 128), keyCountInput("a", a, 256)}, v311: 383, v50: 384},
		{name: "overflow", in: []KeyCountInput{noSketch, {Path: "x", EstimatedKeys: math.MaxInt64}}, v311: math.MinInt64 + 5, v50: math.MinInt64 + 6},
	} {
		for _, r := range []struct {
			rules KeyCountRules
			want  int64
		}{{KeyCountCassandra311, c.v311}, {KeyCountCassandra50, c.v50}} {
			got, err := ApproximateKeyCount(r.rules, c.in)
			var ce *CorruptionError
			switch {
			case r.want == corrupt:
				if !errors.As(err, &ce) || ce.Component != string(ComponentStatistics) || ce.Path == "" ||
					(c.failOffset >= 0 && ce.Offset != c.failOffset) || ce.Offset < 100 {
					t.Errorf("%s, %v: %d, %v; want a CorruptionError at offset %d", c.name, r.rules, got, err, c.failOffset)
				}
			case r.want == fail:
				if err == nil || errors.As(err, &ce) {
					t.Errorf("%s, %v: %d, %v; want an error", c.name, r.rules, got, err)
				}
			case err != nil || got != r.want:
				t.Errorf("%s, %v: %d, %v; want %d", c.name, r.rules, got, err, r.want)
			}
		}
	}
	if _, err := ApproximateKeyCount(0, nil); err == nil {
		t.Error("rules 0 accepted")
	}
}

// TestSummaryEstimatedKeys checks IndexSummary.getEstimatedKeyCount's
// long arithmetic.
func TestSummaryEstimatedKeys(t *testing.T) {
	s := &Summary{MinIndexInterval: 128, SizeAtFullSampling: 3}
	if got := s.EstimatedKeys(); got != 512 {
		t.Errorf("(3 + 1) · 128 = %d", got)
	}
	s = &Summary{MinIndexInterval: math.MaxInt32, SizeAtFullSampling: math.MaxInt32}
	if got := s.EstimatedKeys(); got != (int64(math.MaxInt32)+1)*math.MaxInt32 {
		t.Errorf("long arithmetic: %d", got)
	}
}
