// Package reliability damages the reference SSTables of the shared test
// data and checks how castable takes it: every component of every SSTable
// is truncated at many lengths and has bytes flipped (Plan, Damage), each
// damaged SSTable is read through the library (Open, a full scan, Get of
// its keys, Verify — ProbeLibrary) and through the castable dump and verify
// commands, each under a timeout and an allocation bound (Guard), and each
// outcome gets a verdict (caught, valid, undetectable by the format, or
// failed — judge). Tally turns the outcomes into the Markdown table of the
// README's Reliability section; cmd/corruption-table prints it.
//
// The package's tests add the rest of the reliability suite: the sweep
// itself (TestCorruptionSweep; -long for the full plan), FuzzSSTableComponent
// (one component of a real SSTable replaced by fuzz input), fault injection
// into the mc and la writers (TestWriterFaults*), crash consistency under
// SIGKILL (TestCrashConsistency, which re-executes the test binary as the
// flushing child) and the limits for hostile input (TestHostileHeaderCounts,
// TestKeySizeLimits, TestReaderValueSizeLimit), and castable scrub over the
// sweep's damaged copies (TestScrubSweep, TestScrubRandomDamage, FuzzScrub).
package reliability
