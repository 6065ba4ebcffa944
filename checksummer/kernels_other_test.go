//go:build !amd64 || purego

package checksummer

// kernelUpdaters returns no kernels: this build has no assembly.
func kernelUpdaters() []updater { return nil }
