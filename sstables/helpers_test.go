package sstables

import (
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/castable-db/castable/checksummer"
)

func algOf(v uint8) checksummer.Algorithm { return checksummer.Algorithm(v) }

func slicesSortFunc[T any](s []T, cmp func(a, b T) int) { slices.SortFunc(s, cmp) }

func bitsLeadingZeros64(x uint64) int { return bits.LeadingZeros64(x) }

func slicesClone[T any](s []T) []T { return slices.Clone(s) }

func newTestRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed+1)) }
