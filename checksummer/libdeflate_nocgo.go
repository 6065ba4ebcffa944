//go:build !(cgo && libdeflate)

package checksummer

// libdeflateCheckers are the checksummers libdeflate brings: none here.
var libdeflateCheckers []Checksummer

// libdeflateMissing names what this build lacks, and why.
var libdeflateMissing = map[string]string{
	"libdeflate-crc32":   "built without libdeflate (needs cgo and -tags libdeflate)",
	"libdeflate-adler32": "built without libdeflate (needs cgo and -tags libdeflate)",
}
