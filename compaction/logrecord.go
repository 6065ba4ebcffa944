package compaction

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// A transaction log holds one record a line (Cassandra's LogRecord, the
// same from 3.0 through 5.0):
//
//	ADD:[/data/ks/t-<id>/me-5-big,0,8][1966426401]
//	REMOVE:[/data/ks/t-<id>/me-1-big,1700000000123,8][3060227312]
//	COMMIT:[,0,0][2613877278]
//
// ADD names an SSTable the transaction writes, REMOVE one it replaces (with
// the newest modification time of its files, in milliseconds, and their
// count), COMMIT or ABORT ends it. A record's path is the SSTable's files'
// common prefix, absolute: "<dir>/<version>-<id>-<kind>" (Cassandra
// 3.0–4.0 write it so, 4.1 and later with the separator after it:
// ".../me-5-big-"). The checksum, in decimal, is the CRC-32 of the path's
// text, the type's name in upper case, and three big-endian 32-bit
// integers: the update time's low half, its high half, the file count.
// Only a REMOVE record keeps an update time and only ADD and REMOVE a path
// and a count: a reader takes the others as 0 and "", whatever the line
// says, when it checks the checksum.

// recordType is a LogRecord.Type.
type recordType uint8

const (
	recUnknown recordType = iota // a line that does not parse
	recAdd
	recRemove
	recCommit
	recAbort
)

var recordNames = [...]string{recUnknown: "UNKNOWN", recAdd: "ADD", recRemove: "REMOVE", recCommit: "COMMIT", recAbort: "ABORT"}

func (t recordType) String() string { return recordNames[t] }

func (t recordType) hasFile() bool { return t == recAdd || t == recRemove }
func (t recordType) final() bool   { return t == recCommit || t == recAbort }

// logRecord is one line of a log, as written or as read.
type logRecord struct {
	typ recordType
	// path is the path text of an ADD or REMOVE record (empty otherwise).
	path string
	// updateTime is a REMOVE record's newest file modification time in
	// milliseconds (0 otherwise).
	updateTime int64
	// numFiles is an ADD or REMOVE record's file count (0 otherwise).
	numFiles int32
	// checksum is the checksum the line carries.
	checksum int64
	// raw is the line.
	raw string
	// err is why the record is invalid ("" when it is not known to be).
	err string
}

// newRecord makes a record to write.
func newRecord(typ recordType, path string, updateTime int64, numFiles int32) logRecord {
	r := logRecord{typ: typ, path: path, updateTime: updateTime, numFiles: numFiles}
	r.normalize()
	r.checksum = r.computeChecksum()
	r.raw = fmt.Sprintf("%s:[%s,%d,%d][%d]", r.typ, r.path, r.updateTime, r.numFiles, r.checksum)
	return r
}

// normalize drops what a record type does not keep (LogRecord's
// constructor).
func (r *logRecord) normalize() {
	if r.typ != recRemove {
		r.updateTime = 0
	}
	if !r.typ.hasFile() {
		r.numFiles = 0
		r.path = ""
	}
}

// computeChecksum is LogRecord.computeChecksum: CRC32 of the path, the type
// name and the update time's halves and file count as big-endian ints.
func (r *logRecord) computeChecksum() int64 {
	var b [12]byte
	binary.BigEndian.PutUint32(b[0:], uint32(r.updateTime))
	binary.BigEndian.PutUint32(b[4:], uint32(uint64(r.updateTime)>>32))
	binary.BigEndian.PutUint32(b[8:], uint32(r.numFiles))
	c := crc32.ChecksumIEEE([]byte(r.path))
	c = crc32.Update(c, crc32.IEEETable, []byte(r.typ.String()))
	c = crc32.Update(c, crc32.IEEETable, b[:])
	return int64(c)
}

// recordRegex is LogRecord.REGEX, case-insensitive.
var recordRegex = regexp.MustCompile(`(?i)^(add|remove|commit|abort):\[([^,]*),?([^,]*),?([^,]*)\]\[(\d*)\]$`)

// parseRecord reads a line as LogRecord.make(String) does. A line that does
// not parse is a recUnknown record with an error.
func parseRecord(line string) logRecord {
	// Java's $ also matches before a final line terminator the line
	// reader leaves in (U+0085, U+2028, U+2029).
	m := recordRegex.FindStringSubmatch(trimJavaTerminator(line))
	if m == nil {
		return logRecord{raw: line, err: fmt.Sprintf("Failed to parse [%s]", line)}
	}
	r := logRecord{raw: line, path: m[2]}
	switch strings.ToUpper(m[1]) {
	case "ADD":
		r.typ = recAdd
	case "REMOVE":
		r.typ = recRemove
	case "COMMIT":
		r.typ = recCommit
	default:
		r.typ = recAbort
	}
	var err error
	if r.updateTime, err = strconv.ParseInt(m[3], 10, 64); err == nil {
		var n int64
		if n, err = strconv.ParseInt(m[4], 10, 32); err == nil {
			r.numFiles = int32(n)
			r.checksum, err = strconv.ParseInt(m[5], 10, 64)
		}
	}
	if err != nil {
		return logRecord{raw: line, err: fmt.Sprintf("Failed to parse line: %v", err)}
	}
	r.normalize()
	return r
}

func trimJavaTerminator(s string) string {
	for _, t := range []string{"\u0085", "\u2028", "\u2029"} {
		if strings.HasSuffix(s, t) {
			return s[:len(s)-len(t)]
		}
	}
	return s
}

// valid reports whether the record parsed and nothing was found wrong
// with it (LogRecord.isValid).
func (r *logRecord) valid() bool { return r.typ != recUnknown && r.err == "" }

// sameRecord is LogRecord.equals: type, path, file count and update time
// (not the checksum), which two lines of one log may not share.
func sameRecord(a, b *logRecord) bool {
	return a.typ == b.typ && a.path == b.path && a.numFiles == b.numFiles && a.updateTime == b.updateTime
}

// prefix returns the name prefix the files of a record's SSTable share,
// and its directory: the path's last element, with the separator after
// it when the path has none (as Cassandra 3.x adds it back, so that
// "ks-t-ka-1" does not take the files of generation 10).
func (r *logRecord) prefix() (dir, prefix string) {
	dir, prefix = filepath.Dir(r.path), filepath.Base(r.path)
	if !strings.HasSuffix(prefix, "-") {
		prefix += "-"
	}
	return dir, prefix
}

// splitLines splits a log's content into lines as Java's readAllLines
// does: at "\n", "\r\n" or "\r", a last line without terminator kept, no
// empty line after a final terminator.
func splitLines(b []byte) []string {
	var lines []string
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' && b[i] != '\r' {
			i++
		}
		lines = append(lines, string(b[:i]))
		switch {
		case i == len(b):
			b = nil
		case b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n':
			b = b[i+2:]
		default:
			b = b[i+1:]
		}
	}
	return lines
}
