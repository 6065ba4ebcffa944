//go:build amd64 && !purego

package checksummer

// kernelUpdaters returns the Adler-32 assembly kernels this CPU can run,
// each forced, so the tests cover all of them whatever UpdateAdler32 picks.
func kernelUpdaters() []updater {
	var out []updater
	if useAdler32AVX2 {
		out = append(out, updater{"adler32-avx2", Adler32, func(prev uint32, p []byte) uint32 {
			return adler32Vector(prev, p, true, false)
		}})
	}
	if useAdler32AVX512 {
		out = append(out, updater{"adler32-avx512", Adler32, func(prev uint32, p []byte) uint32 {
			return adler32Vector(prev, p, true, true)
		}})
	}
	return out
}
