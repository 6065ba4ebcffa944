package sstables

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// UUID-based SSTable identifiers (Cassandra 4.1+, UUIDBasedSSTableId),
// 28 characters of lower-case base 36:
//
//	dddd_ssss_nnnnnrrrrrrrrrrrrr
//	dddd            days since 1582-10-15 of the TimeUUID's timestamp T
//	                (100 ns units), T / 864000000000, 4 digits
//	ssss            seconds of that day, (T / 10^7) mod 86400, 4 digits
//	nnnnn           T mod 10^7 (the 100 ns units within the second), 5 digits
//	r…r             the TimeUUID's least significant 64 bits, unsigned,
//	                13 digits
//
// each part left-padded with '0'. Cassandra generates T as unixMicros·10 +
// 122192928000000000 (strictly increasing within a process) and a least
// significant half of 0x8000000000000000 | 14-bit random clock sequence
// << 48 | 48-bit node, fixed per process. Identifiers order as TimeUUIDs:
// by T, then by the least significant half.
const (
	uuidEpochOffset = 122192928000000000 // 1582-10-15 to 1970-01-01 in 100 ns units
	uuidIDLen       = 28
	tPerDay         = 864000000000
	tPerSecond      = 10000000
)

// UUIDID is a UUID-based SSTable identifier.
type UUIDID struct {
	// T is the TimeUUID timestamp in 100 ns units since 1582-10-15.
	T uint64
	// LSB is the TimeUUID's least significant 64 bits.
	LSB uint64
}

// String returns the identifier's 28-character text.
func (u UUIDID) String() string {
	var b strings.Builder
	pad := func(v uint64, n int) {
		s := strconv.FormatUint(v, 36)
		b.WriteString(strings.Repeat("0", n-len(s)))
		b.WriteString(s)
	}
	pad(u.T/tPerDay, 4)
	b.WriteByte('_')
	pad((u.T/tPerSecond)%86400, 4)
	b.WriteByte('_')
	pad(u.T%tPerSecond, 5)
	pad(u.LSB, 13)
	return b.String()
}

// Time returns the instant of the identifier's timestamp.
func (u UUIDID) Time() time.Time {
	t := int64(u.T) - uuidEpochOffset
	return time.Unix(t/tPerSecond, (t%tPerSecond)*100).UTC()
}

// Compare orders identifiers as Cassandra orders them.
func (u UUIDID) Compare(o UUIDID) int {
	switch {
	case u.T != o.T:
		if u.T < o.T {
			return -1
		}
		return 1
	case u.LSB != o.LSB:
		// TimeUUIDs compare their least significant halves signed.
		if int64(u.LSB) < int64(o.LSB) {
			return -1
		}
		return 1
	}
	return 0
}

// ParseUUIDID parses the text of a UUID-based identifier (case does not
// matter).
func ParseUUIDID(s string) (UUIDID, error) {
	bad := func() (UUIDID, error) { return UUIDID{}, fmt.Errorf("%q is not a UUID-based SSTable identifier", s) }
	if len(s) != uuidIDLen || s[4] != '_' || s[9] != '_' {
		return bad()
	}
	s = strings.ToLower(s)
	num := func(p string) (uint64, bool) {
		for _, c := range p {
			if (c < '0' || c > '9') && (c < 'a' || c > 'z') {
				return 0, false
			}
		}
		v, err := strconv.ParseUint(p, 36, 64)
		return v, err == nil
	}
	days, ok1 := num(s[0:4])
	secs, ok2 := num(s[5:9])
	frac, ok3 := num(s[10:15])
	lsb, ok4 := num(s[15:])
	if !ok1 || !ok2 || !ok3 || !ok4 || secs >= 86400 || frac >= tPerSecond {
		return bad()
	}
	return UUIDID{T: days*tPerDay + secs*tPerSecond + frac, LSB: lsb}, nil
}

// uuidGen is this process's generator: its node and clock sequence, and the
// last timestamp handed out.
var uuidGen struct {
	mu   sync.Mutex
	lsb  uint64
	last uint64
}

// NewUUIDID returns a fresh identifier as Cassandra makes one: the current
// time in microseconds (strictly increasing within the process) and a
// least significant half fixed per process with a random clock sequence
// and node.
func NewUUIDID() UUIDID {
	g := &uuidGen
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.lsb == 0 {
		var r [8]byte
		if _, err := rand.Read(r[:]); err != nil {
			binary.BigEndian.PutUint64(r[:], uint64(time.Now().UnixNano()))
		}
		v := binary.BigEndian.Uint64(r[:])
		// Variant bits 10, a 14-bit clock sequence, a 48-bit node with
		// the multicast bit set (a random node, RFC 4122 §4.5).
		g.lsb = 1<<63 | (v>>48&0x3fff)<<48 | (v & 0xffffffffffff) | 1<<40
	}
	t := uint64(time.Now().UnixMicro())*10 + uuidEpochOffset
	if t <= g.last {
		t = g.last + 10
	}
	g.last = t
	return UUIDID{T: t, LSB: g.lsb}
}
