package bti

import (
	"math"
	"testing"
)

// TestSizedIntLen checks sizedIntLen against SizedInts.nonZeroSize's
// definition (the bytes of v's significant bits and its sign) around every
// byte boundary.
func TestSizedIntLen(t *testing.T) {
	want := func(v int64) int {
		if v < 0 {
			v = ^v
		}
		n := 1
		for v >= 1<<(8*n-1) && n < 8 {
			n++
		}
		return n
	}
	vals := []int64{0, 1, -1, math.MaxInt64, math.MinInt64}
	for s := 1; s < 64; s++ {
		vals = append(vals, 1<<s, 1<<s-1, -(1 << s), -(1<<s)-1)
	}
	for _, v := range vals {
		if got := sizedIntLen(v); got != want(v) {
			t.Errorf("sizedIntLen(%d) = %d, want %d", v, got, want(v))
		}
	}
}
