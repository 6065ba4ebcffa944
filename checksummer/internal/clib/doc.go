// Package clib holds checksummer's cgo bindings to the system zlib and
// libdeflate. Go refuses Go assembly in a package that uses cgo, so the
// bindings live here and package checksummer keeps its assembly.
//
// Each file is compiled only with cgo and its library's build tag (zlib,
// libdeflate); package checksummer mirrors them with x_cgo.go / x_nocgo.go
// pairs that decide what stands in when a library is absent. Every function
// is one cgo call that does not allocate; empty inputs never reach C.
package clib
