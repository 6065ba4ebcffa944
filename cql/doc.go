// Package cql turns CQL text into castable's model: CREATE TYPE and CREATE
// TABLE into schema types and tables, and INSERT, UPDATE, DELETE (and
// BATCH) into one mutation.Partition per statement, built exactly as
// Cassandra 3.11 builds the update it applies to its memtable.
//
// Entry points:
//
//	ParseSchema(src)          a schema file → *Schema (types and tables)
//	ParseStatements(src)      syntax only → []Statement
//	NewBuilder(schema, opts)  Builder.Exec(src) / Builder.Build(stmt) → Mutation{Table, Partition}
//
// What each statement writes (timestamps from USING TIMESTAMP, else
// Options.DefaultTimestamp, else the clock; local deletion and expiry times
// from Options.Now):
//
//   - INSERT: the row's primary-key liveness (expiring with USING TTL or the
//     table's default_time_to_live; none for COMPACT STORAGE tables and for
//     writes of static columns only) and one cell per column; null writes a
//     cell tombstone; a non-frozen collection or UDT is overwritten: a
//     complex deletion at timestamp-1 then one cell per element (set
//     elements with empty values, list elements under timeuuid paths, UDT
//     fields under their 2-byte index); a COMPACT STORAGE table without
//     regular columns writes its hidden empty "value" cell.
//   - UPDATE: cells only (no liveness); c = c + {...} / [...] appends,
//     c = [...] + c prepends, c = c - {...} writes element tombstones,
//     m[k] = v and u.f = v write one element, c = c + n / c - n updates a
//     counter; IN on clustering columns writes several rows.
//   - DELETE: the partition deletion, row deletions, cell tombstones,
//     complex deletions of whole collections (at the timestamp), element
//     tombstones (m[k], s[e], u.f), or a range tombstone as two markers:
//     a clustering prefix (ck1 = x) deletes INCL_START(x)..INCL_END(x), a
//     slice uses EXCL/INCL bounds as written (swapped on DESC columns).
//
// Offline limits, reported as errors: conditional statements (IF NOT
// EXISTS, IF EXISTS, IF c = v) need a read and are rejected, not ignored;
// so are list operations by index or by value (l[i] = v, DELETE l[i],
// l = l - [v]), INSERT JSON, bind markers, token() and IN on the partition
// key (a statement writes one partition).
//
// Counters: Cassandra's write path turns an increment into a context with
// a global shard of the coordinator's counter id holding the node's running
// total. A Builder does the same with Options.CounterID (random per Builder
// by default): clock = max(timestamp, previous clock + 1), count = running
// total of its increments to that cell.
//
// List cell paths are version 1 timeuuids: increasing from the clock for
// appends, and below every append for prepends (Cassandra's PrecisionTime
// mirrored around 2010-01-01); Options.TimeUUID replaces the generator.
//
// Errors are *SyntaxError values naming the line and column, e.g.
// "line 3, column 17: expected ')' near ...", and for values
// "line 1, column 40: column v: value 0x0102 is not a valid int (...)".
package cql
