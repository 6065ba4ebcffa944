// Command checksum_pair times castable's default CRC-32 and Adler-32 against libdeflate 1.25's
// in the same process, alternating many short measurements and reporting the median of the
// paired time ratios, so that a shared machine's drift (which moves both sides of a pair alike)
// cancels out. It is the instrument behind the README's "against libdeflate 1.25" figures,
// beside the two-program comparison of perf_checksum and ../shared/tools/checksum-anchor.
//
// libdeflate runs in a loop written in C (one cgo call per measurement, not per checksum),
// exactly as the anchor's bench does; castable runs in a Go loop through the registry's
// Checksummer interface, as perf_checksum and the SSTable writers call it (or, with
// -call direct, through UpdateCRC32/UpdateAdler32). Build and run it with run.sh, which
// compiles libdeflate 1.25 from the bundled source in ../shared/tools/checksum-anchor and pins
// the process to one core; it is its own module so that the project's build never needs it.
package main

/*
#include <stddef.h>
#include <stdint.h>
#include "libdeflate.h"

static uint32_t loop_crc32(const uint8_t *b, size_t n, long it, int chain) {
	uint32_t s = 0;
	if (chain) {
		for (long i = 0; i < it; i++) s = libdeflate_crc32(s, b, n);
	} else {
		for (long i = 0; i < it; i++) s ^= libdeflate_crc32(0, b, n);
	}
	return s;
}

static uint32_t loop_adler32(const uint8_t *b, size_t n, long it, int chain) {
	uint32_t s = 1;
	if (chain) {
		for (long i = 0; i < it; i++) s = libdeflate_adler32(s, b, n);
	} else {
		for (long i = 0; i < it; i++) s ^= libdeflate_adler32(1, b, n);
	}
	return s;
}
*/
import "C"

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/castable-db/castable/checksummer"
)

// sink keeps every result alive.
var sink uint32

// options are the command's flags.
type options struct {
	sizes []int
	algs  []string
	pairs int
	each  time.Duration
	call  string
	chain bool
}

func main() {
	var o options
	sizes := flag.String("sizes", "514,65536", "buffer sizes in bytes, comma-separated")
	algs := flag.String("algs", "crc32,adler32", "checksums: crc32, adler32")
	flag.IntVar(&o.pairs, "pairs", 300, "paired measurements per case")
	flag.DurationVar(&o.each, "each", 5*time.Millisecond, "length of one measurement (libdeflate's side sizes the iterations)")
	flag.StringVar(&o.call, "call", "interface", "how castable is called: interface (the registry's Checksummer) or direct")
	flag.BoolVar(&o.chain, "chain", false, "each call continues the previous checksum (latency) instead of starting afresh (throughput)")
	flag.Parse()
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 1<<24 {
			fmt.Fprintf(os.Stderr, "checksum_pair: bad size %q (1 B … 16 MiB)\n", f)
			os.Exit(2)
		}
		o.sizes = append(o.sizes, n)
	}
	for _, a := range strings.Split(*algs, ",") {
		if a != "crc32" && a != "adler32" {
			fmt.Fprintf(os.Stderr, "checksum_pair: unknown checksum %q (crc32, adler32)\n", a)
			os.Exit(2)
		}
		o.algs = append(o.algs, a)
	}
	if o.call != "interface" && o.call != "direct" {
		fmt.Fprintf(os.Stderr, "checksum_pair: -call must be interface or direct, not %q\n", o.call)
		os.Exit(2)
	}
	if o.pairs < 1 || o.each <= 0 {
		fmt.Fprintln(os.Stderr, "checksum_pair: -pairs and -each must be positive")
		os.Exit(2)
	}
	run(o)
}

// run prints one line per checksum and size.
func run(o options) {
	buf := alignedRandom(slices.Max(o.sizes))
	fmt.Printf("castable %s vs libdeflate 1.25, %d pairs of %v, call=%s, chain=%v\n",
		strings.Join(o.algs, "/"), o.pairs, o.each, o.call, o.chain)
	fmt.Printf("%-8s %8s  %-32s %12s %12s\n", "checksum", "size", "castable/libdeflate (p25 … p75)", "castable ns", "libdeflate ns")
	for _, alg := range o.algs {
		for _, size := range o.sizes {
			p := buf[:size]
			ours, theirs := loops(alg, p, o)
			n := calibrate(theirs, o.each)
			var ratios, a, b []float64
			for i := range o.pairs {
				var ta, tb float64
				if i%2 == 0 { // alternate which side goes first
					ta, tb = timed(ours, n), timed(theirs, n)
				} else {
					tb, ta = timed(theirs, n), timed(ours, n)
				}
				ratios = append(ratios, ta/tb)
				a = append(a, ta/float64(n))
				b = append(b, tb/float64(n))
			}
			r := fmt.Sprintf("%.3f (%.3f … %.3f)", median(ratios), quantile(ratios, 0.25), quantile(ratios, 0.75))
			fmt.Printf("%-8s %8d  %-32s %12.2f %12.2f\n", alg, size, r, median(a), median(b))
		}
	}
}

// loops returns castable's and libdeflate's loop of n checksums of p.
func loops(alg string, p []byte, o options) (ours, theirs func(n int)) {
	c, ok := checksummer.Lookup(alg)
	if !ok {
		fmt.Fprintf(os.Stderr, "checksum_pair: no %s checksummer\n", alg)
		os.Exit(1)
	}
	update := c.Update
	if o.call == "direct" {
		update = checksummer.UpdateCRC32
		if alg == "adler32" {
			update = checksummer.UpdateAdler32
		}
	}
	init := c.Init()
	switch {
	case o.call == "interface" && o.chain:
		ours = func(n int) {
			s := init
			for range n {
				s = c.Update(s, p)
			}
			sink ^= s
		}
	case o.call == "interface":
		ours = func(n int) {
			var s uint32
			for range n {
				s ^= c.Update(init, p)
			}
			sink ^= s
		}
	case o.chain:
		ours = func(n int) {
			s := init
			for range n {
				s = update(s, p)
			}
			sink ^= s
		}
	default:
		ours = func(n int) {
			var s uint32
			for range n {
				s ^= update(init, p)
			}
			sink ^= s
		}
	}
	cp, cn, chain := (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(p))), C.size_t(len(p)), C.int(0)
	if o.chain {
		chain = 1
	}
	theirs = func(n int) {
		if alg == "crc32" {
			sink ^= uint32(C.loop_crc32(cp, cn, C.long(n), chain))
		} else {
			sink ^= uint32(C.loop_adler32(cp, cn, C.long(n), chain))
		}
	}
	return ours, theirs
}

// calibrate returns the iterations that make loop last about d.
func calibrate(loop func(int), d time.Duration) int {
	n := 16
	for {
		if t := timed(loop, n); t >= float64(d.Nanoseconds()) || n >= 1<<30 {
			return n
		}
		n *= 2
	}
}

// timed returns loop(n)'s wall time in nanoseconds.
func timed(loop func(int), n int) float64 {
	start := time.Now()
	loop(n)
	return float64(time.Since(start).Nanoseconds())
}

// alignedRandom returns n random bytes starting at a 64-byte boundary.
func alignedRandom(n int) []byte {
	raw := make([]byte, n+64)
	r := rand.New(rand.NewPCG(2018, 11))
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	off := int(-uintptr(unsafe.Pointer(&raw[0])) & 63)
	return raw[off : off+n]
}

func median(v []float64) float64 { return quantile(v, 0.5) }

// quantile returns the q-quantile of v (sorted in place).
func quantile(v []float64, q float64) float64 {
	slices.Sort(v)
	return v[int(q*float64(len(v)-1)+0.5)]
}
