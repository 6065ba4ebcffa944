package jsondump

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"

	"github.com/castable-db/castable/mutation"
)

// Time fields (json-format.md §1.6, §2.2):
//
//	field                          unit                    default rendering
//	tstamp, marked_deleted         µs since the epoch      ISO-8601 instant (Java Instant.toString)
//	local_delete_time, expires_at  s since the epoch       ISO-8601 instant
//	ttl                            s                       JSON number
//
// Java's Instant.toString prints the UTC date and time with seconds always
// present and the fraction in groups of three digits (none, milli, micro
// or nano) as needed; years outside 0000..9999 get a sign ("+10000",
// "-0001").

// appendInstant appends the Java Instant text of secs seconds plus nanos
// (0..999999999) since the epoch.
func appendInstant(dst []byte, secs int64, nanos int64) []byte {
	t := time.Unix(secs, 0).UTC()
	y := t.Year()
	switch {
	case y > 9999:
		dst = append(dst, '+')
		dst = strconv.AppendInt(dst, int64(y), 10)
	case y < 0:
		dst = append(dst, '-')
		dst = appendPad(dst, int64(-y), 4)
	default:
		dst = appendPad(dst, int64(y), 4)
	}
	dst = append(dst, '-')
	dst = appendPad(dst, int64(t.Month()), 2)
	dst = append(dst, '-')
	dst = appendPad(dst, int64(t.Day()), 2)
	dst = append(dst, 'T')
	dst = appendPad(dst, int64(t.Hour()), 2)
	dst = append(dst, ':')
	dst = appendPad(dst, int64(t.Minute()), 2)
	dst = append(dst, ':')
	dst = appendPad(dst, int64(t.Second()), 2)
	if nanos > 0 {
		dst = append(dst, '.')
		switch {
		case nanos%1_000_000 == 0:
			dst = appendPad(dst, nanos/1_000_000, 3)
		case nanos%1000 == 0:
			dst = appendPad(dst, nanos/1000, 6)
		default:
			dst = appendPad(dst, nanos, 9)
		}
	}
	return append(dst, 'Z')
}

func appendPad(dst []byte, v int64, width int) []byte {
	var b [20]byte
	s := strconv.AppendInt(b[:0], v, 10)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// appendMicrosInstant renders a timestamp in µs as sstabledump does.
func appendMicrosInstant(dst []byte, micros int64) []byte {
	secs := floorDiv(micros, 1_000_000)
	return appendInstant(dst, secs, (micros-secs*1_000_000)*1000)
}

// appendSecondsInstant renders a time in s as sstabledump does.
func appendSecondsInstant(dst []byte, secs int64) []byte { return appendInstant(dst, secs, 0) }

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

var errBadTime = errors.New("not an integer, a decimal string or an ISO-8601 instant")

// parseTimeValue reads a time field given as raw JSON: a JSON integer, a
// string of decimal digits, or an ISO-8601 instant string. micros selects
// the unit (µs for tstamp/marked_deleted, s otherwise); an ISO instant must
// not carry digits below that unit.
func parseTimeValue(raw []byte, micros bool) (int64, error) {
	if len(raw) == 0 {
		return 0, errBadTime
	}
	if raw[0] == '"' {
		if len(raw) >= 2 && raw[len(raw)-1] == '"' {
			if v, ok := parseInt(raw[1 : len(raw)-1]); ok {
				return v, nil
			}
		}
		s, err := unquote(raw)
		if err != nil {
			return 0, err
		}
		if isDecimal(s) {
			return 0, fmt.Errorf("%s is out of range for a 64-bit time", s)
		}
		return parseISOInstant(s, micros)
	}
	if v, ok := parseInt(raw); ok {
		return v, nil
	}
	if isDecimal(string(raw)) {
		return 0, fmt.Errorf("%s is out of range for a 64-bit time", raw)
	}
	return 0, fmt.Errorf("%s: %w", raw, errBadTime)
}

// parseDeletionTimeValue reads a local deletion or expiration time (s):
// from the most negative 32-bit value (the wrapped overflow of
// CASSANDRA-14092 that 3.x files can hold) to mutation.MaxDeletionTime
// (oa's unsigned times reach 2106).
func parseDeletionTimeValue(raw []byte) (int64, error) {
	v, err := parseTimeValue(raw, false)
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > mutation.MaxDeletionTime {
		return 0, fmt.Errorf("%d is out of range for a local deletion time", v)
	}
	return v, nil
}

// parseInt32Value reads a seconds field that must fit an int32.
func parseInt32Value(raw []byte, micros bool) (int32, error) {
	v, err := parseTimeValue(raw, micros)
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, fmt.Errorf("%d is out of range for a 32-bit time", v)
	}
	return int32(v), nil
}

func isDecimal(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseISOInstant parses [+-]yyyy[yy..]-MM-ddTHH:mm[:ss[.f{1,9}]](Z|±HH[:mm[:ss]]|±HHmm)
// into µs (micros) or s since the epoch.
func parseISOInstant(s string, micros bool) (int64, error) {
	bad := func(why string) (int64, error) {
		return 0, fmt.Errorf("bad ISO-8601 instant %q: %s", s, why)
	}
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	ys := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i-ys < 4 || i-ys > 10 {
		return bad("year")
	}
	year, _ := strconv.ParseInt(s[ys:i], 10, 64)
	if neg {
		year = -year
	}
	num := func(n int, sep byte) (int64, bool) {
		if sep != 0 {
			if i >= len(s) || s[i] != sep {
				return 0, false
			}
			i++
		}
		if i+n > len(s) {
			return 0, false
		}
		var v int64
		for k := 0; k < n; k++ {
			c := s[i+k]
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int64(c-'0')
		}
		i += n
		return v, true
	}
	month, ok1 := num(2, '-')
	day, ok2 := num(2, '-')
	if !ok1 || !ok2 || i >= len(s) || (s[i] != 'T' && s[i] != 't') {
		return bad("date")
	}
	i++
	hour, ok1 := num(2, 0)
	minute, ok2 := num(2, ':')
	if !ok1 || !ok2 {
		return bad("time")
	}
	var sec, nanos int64
	if i < len(s) && s[i] == ':' {
		var ok bool
		if sec, ok = num(2, ':'); !ok {
			return bad("seconds")
		}
		if i < len(s) && (s[i] == '.' || s[i] == ',') {
			i++
			fs := i
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
			if i == fs || i-fs > 9 {
				return bad("fraction")
			}
			f, _ := strconv.ParseInt(s[fs:i], 10, 64)
			for k := i - fs; k < 9; k++ {
				f *= 10
			}
			nanos = f
		}
	}
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 59 {
		return bad("field out of range")
	}
	var offset int64
	switch {
	case i < len(s) && (s[i] == 'Z' || s[i] == 'z'):
		i++
	case i < len(s) && (s[i] == '+' || s[i] == '-'):
		sign := int64(1)
		if s[i] == '-' {
			sign = -1
		}
		i++
		oh, ok := num(2, 0)
		if !ok {
			return bad("offset")
		}
		var om, os int64
		if i < len(s) && s[i] == ':' {
			if om, ok = num(2, ':'); !ok {
				return bad("offset")
			}
			if i < len(s) && s[i] == ':' {
				if os, ok = num(2, ':'); !ok {
					return bad("offset")
				}
			}
		} else if i+2 <= len(s) {
			if om, ok = num(2, 0); !ok {
				return bad("offset")
			}
		}
		if oh > 18 || om > 59 || os > 59 {
			return bad("offset out of range")
		}
		offset = sign * (oh*3600 + om*60 + os)
	default:
		return bad("missing zone (Z or an offset)")
	}
	if i != len(s) {
		return bad("trailing text")
	}
	if day > int64(daysIn(year, month)) {
		return bad("day out of range")
	}
	secs := daysFromCivil(year, month, day)*86400 + hour*3600 + minute*60 + sec - offset
	if micros {
		if nanos%1000 != 0 {
			return bad("digits below the microsecond")
		}
		us := nanos / 1000
		if secs > -9_000_000_000_000 && secs < 9_000_000_000_000 {
			return secs*1_000_000 + us, nil
		}
		v := new(big.Int).Mul(big.NewInt(secs), big.NewInt(1_000_000))
		v.Add(v, big.NewInt(us))
		if !v.IsInt64() {
			return bad("out of range")
		}
		return v.Int64(), nil
	}
	if nanos != 0 {
		return bad("a time in seconds cannot have a fraction")
	}
	return secs, nil
}

// daysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian
// date (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func daysIn(y, m int64) int {
	switch m {
	case 2:
		if (y%4 == 0 && y%100 != 0) || y%400 == 0 {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
