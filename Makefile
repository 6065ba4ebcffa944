# castable — build, test and benchmark entry points.
#
# The C libraries are optional. The Makefile detects each with pkg-config and
# turns on the matching build tag; the pure-Go build is always tested too.
#   libdeflate -> tag libdeflate (fast CRC32/Adler32 reference checksummers)
#   zlib       -> tag zlib       (zlib CRC32 and combine, Cassandra-identical Deflate)
#   liblz4     -> tag liblz4     (Cassandra-identical LZ4 chunks, faster compression)

GO      ?= go
PKG     ?= ./...
# FUZZTIME is a count of executions, not a duration: Go 1.26's fuzz
# coordinator can fail a target with a bare "context deadline exceeded" when a
# wall-clock -fuzztime ends while a worker is busy (golang/go#75804, fixed in
# Go 1.27); a count never races that deadline.
FUZZTIME ?= 10000x

have = $(shell pkg-config --exists $(1) 2>/dev/null && echo $(2))
TAGS := $(strip $(call have,libdeflate,libdeflate) $(call have,zlib,zlib) $(call have,liblz4,liblz4))
comma := ,
empty :=
space := $(empty) $(empty)
TAGFLAG := $(if $(TAGS),-tags $(subst $(space),$(comma),$(TAGS)),)

.PHONY: all build demo test test-full test-short test-purego test-cgo test-race test-sweeps test-beam test-beam-short test-parquetcheck bench bench-flush bench-pebble fuzz-smoke lint lint-purego print-tags clean checksum-pair

all: build

## print-tags: the build tags chosen from the C libraries found
print-tags:
	@echo $(subst $(space),$(comma),$(TAGS))

build:
	CGO_ENABLED=0 $(GO) build $(PKG)
	$(if $(TAGS),CGO_ENABLED=1 $(GO) build $(TAGFLAG) $(PKG),)
	cd beam && CGO_ENABLED=0 $(GO) build ./...

DEMO_DIR ?= $(CURDIR)/.demo

## demo: the main job on built-in defaults — flush 1,000,000 small partitions
## into mc and la, with lz4 and uncompressed, report frag/s, then verify
demo:
	rm -rf $(DEMO_DIR)
	$(GO) run $(TAGFLAG) ./perf/perf_fast_forward --populate --datasets small-part \
	  --sstable-format mc,la --compression lz4,none --data-directory $(DEMO_DIR)
	$(GO) run $(TAGFLAG) ./cmd/castable verify $$(find $(DEMO_DIR) -name '*-TOC.txt' -printf '%h\n' | sort -u)

# The build every test tier runs first: with the C libraries when they are
# there (their tags), else pure Go.
ifneq ($(TAGS),)
MAIN_ENV := CGO_ENABLED=1
else
MAIN_ENV := CGO_ENABLED=0
endif

## test: the README's command — every test of the module and of beam/ once,
## in the main build (the C libraries' tags when present), with sweeps and
## matrices scaled down (go test -short): the live-node and oracle tests
## included. A few minutes on 2 cores.
test: lint test-short test-beam-short test-parquetcheck

## test-full: CI's tier — make test, then every test again in full: the
## pure-Go build, the checksummers and sstables without assembly, the race
## detector over the concurrent code, the Beam module, and the whole
## corruption and scrub sweeps.
test-full: test lint-purego test-purego test-race test-beam test-sweeps

test-short:
	$(MAIN_ENV) $(GO) test -short -count=1 $(TAGFLAG) $(PKG)

test-purego:
	CGO_ENABLED=0 $(GO) test -count=1 $(PKG)
	# the checksummers without their assembly (-tags purego), as on other CPUs
	CGO_ENABLED=0 $(GO) test -count=1 -tags purego ./checksummer ./sstables

test-cgo:
ifneq ($(TAGS),)
	CGO_ENABLED=1 $(GO) test -count=1 $(TAGFLAG) $(PKG)
else
	@echo "no C libraries found (libdeflate, zlib, liblz4): cgo tests skipped"
endif

# The race detector needs cgo (a C compiler), not the optional C libraries.
# The corruption and scrub sweeps decode damaged files on a worker pool
# whose sharing is the writers' and readers' own (raced in flush and the
# crash tests); under the race detector they would cost many minutes and
# find nothing new, so they run in the other tiers only.
RACE_PKGS ?= ./memtable ./flush ./compaction ./table ./internal/reliability
RACE_SKIP ?= ^(TestCorruptionSweep|TestScrubSweep)
test-race:
	CGO_ENABLED=1 $(GO) test -race -count=1 -skip '$(RACE_SKIP)' $(RACE_PKGS)

# The whole sweeps: the corruption sweep's full plan (the README's table)
# and a scrub of every damaged copy of the quick plan.
test-sweeps:
	$(MAIN_ENV) $(GO) test -count=1 $(TAGFLAG) -timeout 60m -run '^(TestCorruptionSweep|TestCorruptionSweepBTI|TestScrubSweep)$$' \
	  ./internal/reliability -args -long -scrub.cases 0

# The Beam module (beam/) has its own go.mod: ./... of the core does not
# reach it.
test-beam-short:
	cd beam && CGO_ENABLED=0 $(GO) test -short -count=1 ./...

test-beam:
	cd beam && CGO_ENABLED=0 $(GO) test -count=1 ./...

# export/parquetcheck has its own go.mod too: DuckDB (cgo) reads back the
# Parquet files castable export writes. Without cgo its test skips (fails
# under CASTABLE_REQUIRE_TESTDATA=1); it is short, so one tier runs it.
test-parquetcheck:
	cd export/parquetcheck && $(GO) test -short -count=1 ./...

## bench: the benchmark matrices
bench:
	$(GO) test $(TAGFLAG) -run '^$$' -bench . -benchmem $(PKG)

## bench-flush: the flush's regression guard — perf_fast_forward --populate of
## this tree and of BASE (a commit), alternating, each round and the paired
## ratio printed: make bench-flush BASE=b06768d [ROUNDS=5] [ARGS='...'] [BURN=1]
bench-flush:
	TAGS='$(subst $(space),$(comma),$(TAGS))' ./perf/bench_flush.sh

## bench-pebble: castable's flush against pebble's sstable.Writer, side by
## side in one process (perf/flush_pebble, its own module): make bench-pebble
## [ARGS='-rounds 3 -formats nb,mc,oa,da -dataset small-part']
bench-pebble:
	cd perf/flush_pebble && $(GO) run $(TAGFLAG) . $(ARGS)

## fuzz-smoke: every fuzz target for $(FUZZTIME); only the packages whose
## tests declare one are compiled
fuzz-smoke:
	@set -e; for line in $$($(GO) list -f '{{.ImportPath}}={{.Dir}}' $(PKG)); do \
	  pkg=$${line%%=*}; dir=$${line#*=}; \
	  grep -qs '^func Fuzz' $$dir/*_test.go || continue; \
	  for fz in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$fz"; \
	    $(GO) test $(TAGFLAG) -run '^$$' -fuzz "^$$fz$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

## checksum-pair: castable's CRC-32/Adler-32 against libdeflate 1.25 in one
## process, alternating (perf/checksum_pair, its own module; needs gcc and
## ../shared/tools/checksum-anchor)
checksum-pair:
	cd perf/checksum_pair && ./run.sh $(ARGS)

## lint: gofmt and go vet (the main build and the modules of its own: beam/, export/parquetcheck, perf/flush_pebble)
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(MAIN_ENV) $(GO) vet $(TAGFLAG) $(PKG)
	cd beam && CGO_ENABLED=0 $(GO) vet ./...
	cd export/parquetcheck && $(GO) vet ./...
	cd perf/flush_pebble && $(GO) vet ./...

## lint-purego: go vet of the pure-Go build, when the main build is cgo's
lint-purego:
	$(if $(TAGS),CGO_ENABLED=0 $(GO) vet $(PKG),)

clean:
	$(GO) clean -testcache
