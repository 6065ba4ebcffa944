package schema

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Text forms of the time types (proleptic Gregorian calendar, UTC):
//
//	timestamp  yyyy-MM-dd HH:mm:ss.SSSZ   e.g. 2015-05-01 09:30:54.234Z
//	date       yyyy-MM-dd                 e.g. 2017-05-05
//	time       HH:MM:SS.nnnnnnnnn         e.g. 19:45:05.090000000
//	duration   [-]NyNmoNdNhNmNsNmsNusNns  e.g. 1h4m48s20ms (zero units left out)
//
// Years below 1000 are zero padded to four digits, years after 9999 get
// more digits, years before 1 are negative ("-0001" is 2 BC). Cassandra's
// Java formatters switch to the Julian calendar before 1582-10-15; that is
// not reproduced.

// daysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian
// date (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era = (z - 146096) / 146097
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

func daysInMonth(y, m int64) int64 {
	switch m {
	case 4, 6, 9, 11:
		return 30
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	}
	return 31
}

func appendPadded(dst []byte, v int64, width int) []byte {
	var buf [24]byte
	s := strconv.AppendInt(buf[:0], v, 10)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

func appendYear(dst []byte, y int64) []byte {
	if y < 0 {
		dst = append(dst, '-')
		y = -y
	}
	return appendPadded(dst, y, 4)
}

// appendDateText appends yyyy-MM-dd of a day count since the epoch.
func appendDateText(dst []byte, days int64) []byte {
	y, m, d := civilFromDays(days)
	dst = appendYear(dst, y)
	dst = append(dst, '-')
	dst = appendPadded(dst, m, 2)
	dst = append(dst, '-')
	return appendPadded(dst, d, 2)
}

// floorDiv divides rounding towards negative infinity.
func floorDiv(a, b int64) (q, r int64) {
	q, r = a/b, a%b
	if r < 0 {
		q--
		r += b
	}
	return q, r
}

// appendTimestampText appends yyyy-MM-dd HH:mm:ss.SSSZ of ms since the
// epoch.
func appendTimestampText(dst []byte, ms int64) []byte {
	days, rem := floorDiv(ms, 86_400_000)
	dst = appendDateText(dst, days)
	dst = append(dst, ' ')
	dst = appendPadded(dst, rem/3_600_000, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, rem/60_000%60, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, rem/1000%60, 2)
	dst = append(dst, '.')
	dst = appendPadded(dst, rem%1000, 3)
	return append(dst, 'Z')
}

// appendTimeText appends HH:MM:SS.nnnnnnnnn of ns since midnight.
func appendTimeText(dst []byte, ns int64) []byte {
	dst = appendPadded(dst, ns/3_600_000_000_000, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, ns/60_000_000_000%60, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, ns/1_000_000_000%60, 2)
	dst = append(dst, '.')
	return appendPadded(dst, ns%1_000_000_000, 9)
}

// Duration units.
const (
	nanosPerMicro  = 1000
	nanosPerMilli  = 1000 * nanosPerMicro
	nanosPerSecond = 1000 * nanosPerMilli
	nanosPerMinute = 60 * nanosPerSecond
	nanosPerHour   = 60 * nanosPerMinute
)

// appendDurationText appends Cassandra's Duration.toString. A zero duration
// prints as "0s" (Cassandra prints an empty string, which the JSON
// convention reserves for empty values).
func appendDurationText(dst []byte, months, days int32, nanos int64) []byte {
	if months == 0 && days == 0 && nanos == 0 {
		return append(dst, "0s"...)
	}
	if months < 0 || days < 0 || nanos < 0 {
		dst = append(dst, '-')
	}
	m, d := absU64(int64(months)), absU64(int64(days))
	unit := func(v, div uint64, name string) uint64 {
		if v == 0 || v < div {
			return v
		}
		dst = strconv.AppendUint(dst, v/div, 10)
		dst = append(dst, name...)
		return v % div
	}
	r := unit(m, 12, "y")
	unit(r, 1, "mo")
	unit(d, 1, "d")
	if nanos != 0 {
		r = unit(absU64(nanos), nanosPerHour, "h")
		r = unit(r, nanosPerMinute, "m")
		r = unit(r, nanosPerSecond, "s")
		r = unit(r, nanosPerMilli, "ms")
		r = unit(r, nanosPerMicro, "us")
		unit(r, 1, "ns")
	}
	return dst
}

func absU64(v int64) uint64 {
	if v < 0 {
		return uint64(-(v + 1)) + 1
	}
	return uint64(v)
}

// textReader is a tiny cursor for the hand-written parsers below.
type textReader struct {
	s string
	i int
}

func (r *textReader) done() bool { return r.i >= len(r.s) }

func (r *textReader) peek() byte {
	if r.i < len(r.s) {
		return r.s[r.i]
	}
	return 0
}

func (r *textReader) accept(c byte) bool {
	if r.peek() == c && !r.done() {
		r.i++
		return true
	}
	return false
}

// digits reads 1..max decimal digits.
func (r *textReader) digits(max int) (int64, int, bool) {
	start := r.i
	var v int64
	for r.i < len(r.s) && r.i-start < max && r.s[r.i] >= '0' && r.s[r.i] <= '9' {
		v = v*10 + int64(r.s[r.i]-'0')
		r.i++
	}
	return v, r.i - start, r.i > start
}

var errBadDate = errors.New("expected yyyy-mm-dd")

// parseDateText parses [+-]yyyy-mm-dd into days since the epoch.
func parseDateText(r *textReader) (int64, error) {
	neg := false
	if r.peek() == '-' || r.peek() == '+' {
		neg = r.peek() == '-'
		r.i++
	}
	y, _, ok := r.digits(9)
	if !ok || !r.accept('-') {
		return 0, errBadDate
	}
	m, nm, ok := r.digits(2)
	if !ok || nm != 2 || !r.accept('-') {
		return 0, errBadDate
	}
	d, nd, ok := r.digits(2)
	if !ok || nd != 2 {
		return 0, errBadDate
	}
	if neg {
		y = -y
	}
	if m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) {
		return 0, fmt.Errorf("no such date %d-%02d-%02d", y, m, d)
	}
	return daysFromCivil(y, m, d), nil
}

// parseClock parses HH:MM[:SS[.f{1,9}]] into ns since midnight; seconds
// are optional only when allowMinutes is set.
func parseClock(r *textReader, allowMinutes bool) (int64, error) {
	bad := errors.New("expected hh:mm:ss[.fffffffff]")
	h, _, ok := r.digits(2)
	if !ok || !r.accept(':') {
		return 0, bad
	}
	m, nm, ok := r.digits(2)
	if !ok || nm != 2 {
		return 0, bad
	}
	var s, frac int64
	if r.accept(':') {
		var ns int
		s, ns, ok = r.digits(2)
		if !ok || ns != 2 {
			return 0, bad
		}
		if r.accept('.') {
			f, nf, ok := r.digits(9)
			if !ok {
				return 0, bad
			}
			for ; nf < 9; nf++ {
				f *= 10
			}
			frac = f
			if c := r.peek(); c >= '0' && c <= '9' {
				return 0, errors.New("more than 9 fraction digits")
			}
		}
	} else if !allowMinutes {
		return 0, bad
	}
	if h > 23 || m > 59 || s > 59 {
		return 0, fmt.Errorf("no such time %02d:%02d:%02d", h, m, s)
	}
	return h*nanosPerHour + m*nanosPerMinute + s*nanosPerSecond + frac, nil
}

// parseZone parses an optional zone suffix (Z, UTC, GMT, +hh, +hhmm,
// +hh:mm, optionally after one blank) and returns its offset in minutes.
func parseZone(r *textReader) (int64, error) {
	rest := strings.TrimPrefix(r.s[r.i:], " ")
	switch rest {
	case "":
		if r.i != len(r.s) {
			return 0, errors.New("trailing blank")
		}
		return 0, nil
	case "Z", "z", "UTC", "GMT":
		r.i = len(r.s)
		return 0, nil
	}
	zr := textReader{s: rest}
	sign := int64(1)
	switch {
	case zr.accept('+'):
	case zr.accept('-'):
		sign = -1
	default:
		return 0, fmt.Errorf("unexpected %q", rest)
	}
	h, nh, ok := zr.digits(2)
	if !ok || nh != 2 {
		return 0, fmt.Errorf("bad zone offset %q", rest)
	}
	var m int64
	if !zr.done() {
		zr.accept(':')
		var nm int
		m, nm, ok = zr.digits(2)
		if !ok || nm != 2 || !zr.done() {
			return 0, fmt.Errorf("bad zone offset %q", rest)
		}
	}
	if h > 18 || m > 59 {
		return 0, fmt.Errorf("bad zone offset %q", rest)
	}
	r.i = len(r.s)
	return sign * (h*60 + m), nil
}

// parseTimestampText parses a timestamp: integer milliseconds, or
// yyyy-mm-dd[( |T)hh:mm[:ss[.f{1,9}]]][zone] — which covers the value form
// (2015-05-01 09:30:54.234Z), ISO-8601 instants, Cassandra's literal forms
// (2015-05-01 09:30:54.234+0000) and sstabledump's minute-precision key form
// (2015-05-01 09:30+0000). A missing zone means UTC
// (Cassandra uses the server's zone). Digits below the millisecond must be
// zero.
func parseTimestampText(s string) (int64, error) {
	if isIntegerText(s) {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("timestamp %q out of range", s)
		}
		return v, nil
	}
	r := &textReader{s: s}
	days, err := parseDateText(r)
	if err != nil {
		return 0, err
	}
	var clock int64
	if r.peek() == ' ' || r.peek() == 'T' {
		save := r.i
		r.i++
		if c := r.peek(); c >= '0' && c <= '9' {
			if clock, err = parseClock(r, true); err != nil {
				return 0, err
			}
		} else {
			r.i = save
		}
	}
	off, err := parseZone(r)
	if err != nil {
		return 0, err
	}
	if clock%nanosPerMilli != 0 {
		return 0, errors.New("sub-millisecond precision")
	}
	delta := clock/nanosPerMilli - off*60_000
	if days > math.MaxInt64/86_400_000-1 || days < math.MinInt64/86_400_000+1 {
		// Near the ends of the range: exact arithmetic.
		ms := new(big.Int).Mul(big.NewInt(days), big.NewInt(86_400_000))
		ms.Add(ms, big.NewInt(delta))
		if !ms.IsInt64() {
			return 0, errors.New("out of range")
		}
		return ms.Int64(), nil
	}
	return days*86_400_000 + delta, nil
}

// isIntegerText reports whether s is [+-]digits.
func isIntegerText(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseTimeText parses a time: integer nanoseconds or hh:mm:ss[.f{1,9}].
func parseTimeText(s string) (int64, error) {
	if isIntegerText(s) {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 || v > MaxTimeNanos {
			return 0, fmt.Errorf("time %q out of range", s)
		}
		return v, nil
	}
	r := &textReader{s: strings.TrimSpace(s)}
	ns, err := parseClock(r, false)
	if err != nil {
		return 0, err
	}
	if !r.done() {
		return 0, fmt.Errorf("unexpected %q", r.s[r.i:])
	}
	return ns, nil
}

// parseDateValue parses a date: yyyy-mm-dd, or an integer that is the raw
// unsigned serialized day count (2^31 = 1970-01-01), as Cassandra accepts.
// It returns the serialized u32.
func parseDateValue(s string) (uint32, error) {
	if isIntegerText(s) {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 || v > math.MaxUint32 {
			return 0, fmt.Errorf("date %q out of range", s)
		}
		return uint32(v), nil
	}
	r := &textReader{s: s}
	days, err := parseDateText(r)
	if err != nil {
		return 0, err
	}
	if !r.done() {
		return 0, fmt.Errorf("unexpected %q", s[r.i:])
	}
	v := days + DateEpochDays
	if v < 0 || v > math.MaxUint32 {
		return 0, fmt.Errorf("date %q out of range", s)
	}
	return uint32(v), nil
}

// durationUnits are the units of the standard duration format, longest
// match first where prefixes collide (mo before m, ms before m...).
var durationUnits = []struct {
	name  string
	order int // units must appear in increasing order
	month int64
	day   int64
	nanos int64
}{
	{"y", 0, 12, 0, 0},
	{"mo", 1, 1, 0, 0},
	{"w", 2, 0, 7, 0},
	{"d", 3, 0, 1, 0},
	{"h", 4, 0, 0, nanosPerHour},
	{"ms", 7, 0, 0, nanosPerMilli},
	{"m", 5, 0, 0, nanosPerMinute},
	{"s", 6, 0, 0, nanosPerSecond},
	{"us", 8, 0, 0, nanosPerMicro},
	{"µs", 8, 0, 0, nanosPerMicro},
	{"ns", 9, 0, 0, 1},
}

// parseDurationText parses Cassandra's duration literals: the standard
// format ([-]1y2mo3w4d5h6m7s8ms9us10ns, units case-insensitive, each at
// most once, in that order), ISO 8601 (P1Y2M3DT4H5M6S, P3W) and the ISO
// alternative format (P0001-02-03T04:05:06).
func parseDurationText(s string) (months, days int32, nanos int64, err error) {
	src := s
	neg := false
	if strings.HasPrefix(s, "-") {
		neg = true
		s = s[1:]
	}
	var m, d, n int64
	switch {
	case strings.HasPrefix(s, "P") || strings.HasPrefix(s, "p"):
		m, d, n, err = parseISODuration(strings.ToUpper(s[1:]))
	default:
		m, d, n, err = parseStandardDuration(s)
	}
	if err != nil {
		return 0, 0, 0, fmt.Errorf("duration %q: %v", src, err)
	}
	if m > math.MaxInt32 || d > math.MaxInt32 {
		return 0, 0, 0, fmt.Errorf("duration %q: months or days out of range", src)
	}
	if neg {
		m, d, n = -m, -d, -n
	}
	return int32(m), int32(d), n, nil
}

// addChecked returns acc + v*mult, failing on overflow (all inputs >= 0).
func addChecked(acc, v, mult int64) (int64, error) {
	if mult != 0 && v > (math.MaxInt64-acc)/mult {
		return 0, errors.New("out of range")
	}
	return acc + v*mult, nil
}

func parseStandardDuration(s string) (m, d, n int64, err error) {
	if s == "" {
		return 0, 0, 0, errors.New("empty")
	}
	lower := strings.ToLower(s)
	last := -1
	for i := 0; i < len(lower); {
		start := i
		for i < len(lower) && lower[i] >= '0' && lower[i] <= '9' {
			i++
		}
		if i == start {
			return 0, 0, 0, fmt.Errorf("expected a number at %q", s[start:])
		}
		v, perr := strconv.ParseInt(lower[start:i], 10, 64)
		if perr != nil {
			return 0, 0, 0, errors.New("number out of range")
		}
		found := false
		for _, u := range durationUnits {
			if strings.HasPrefix(lower[i:], u.name) {
				if u.order <= last {
					return 0, 0, 0, fmt.Errorf("unit %s repeated or out of order", u.name)
				}
				last = u.order
				i += len(u.name)
				if m, err = addChecked(m, v, u.month); err != nil {
					return
				}
				if d, err = addChecked(d, v, u.day); err != nil {
					return
				}
				if n, err = addChecked(n, v, u.nanos); err != nil {
					return
				}
				found = true
				break
			}
		}
		if !found {
			return 0, 0, 0, fmt.Errorf("unknown unit at %q", s[i:])
		}
	}
	return m, d, n, nil
}

func parseISODuration(s string) (m, d, n int64, err error) {
	if strings.Contains(s, "-") || strings.Contains(s, ":") {
		// Alternative format: YYYY-MM-DDThh:mm:ss.
		var y, mo, dd, h, mi, se int64
		if _, serr := fmt.Sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &dd, &h, &mi, &se); serr != nil ||
			len(s) != len("0000-00-00T00:00:00") {
			return 0, 0, 0, errors.New("expected PYYYY-MM-DDThh:mm:ss")
		}
		if mo > 11 || h > 23 || mi > 59 || se > 59 {
			return 0, 0, 0, errors.New("field out of range")
		}
		return y*12 + mo, dd, h*nanosPerHour + mi*nanosPerMinute + se*nanosPerSecond, nil
	}
	if strings.HasSuffix(s, "W") && !strings.Contains(s, "T") {
		w, perr := strconv.ParseInt(s[:len(s)-1], 10, 64)
		if perr != nil || w < 0 {
			return 0, 0, 0, errors.New("bad week count")
		}
		d, err = addChecked(0, w, 7)
		return 0, d, 0, err
	}
	datePart, timePart, hasTime := strings.Cut(s, "T")
	if s == "" || hasTime && timePart == "" {
		return 0, 0, 0, errors.New("empty ISO 8601 duration")
	}
	parse := func(part string, units string, apply func(unit byte, v int64) error) error {
		order := 0
		for part != "" {
			i := 0
			for i < len(part) && part[i] >= '0' && part[i] <= '9' {
				i++
			}
			if i == 0 || i == len(part) {
				return errors.New("expected <number><unit>")
			}
			v, perr := strconv.ParseInt(part[:i], 10, 64)
			if perr != nil {
				return errors.New("number out of range")
			}
			pos := strings.IndexByte(units[order:], part[i])
			if pos < 0 {
				return fmt.Errorf("unit %c repeated, out of order or unknown", part[i])
			}
			order += pos + 1
			if err := apply(part[i], v); err != nil {
				return err
			}
			part = part[i+1:]
		}
		return nil
	}
	err = parse(datePart, "YMD", func(u byte, v int64) (e error) {
		switch u {
		case 'Y':
			m, e = addChecked(m, v, 12)
		case 'M':
			m, e = addChecked(m, v, 1)
		case 'D':
			d, e = addChecked(d, v, 1)
		}
		return e
	})
	if err != nil {
		return
	}
	err = parse(timePart, "HMS", func(u byte, v int64) (e error) {
		switch u {
		case 'H':
			n, e = addChecked(n, v, nanosPerHour)
		case 'M':
			n, e = addChecked(n, v, nanosPerMinute)
		case 'S':
			n, e = addChecked(n, v, nanosPerSecond)
		}
		return e
	})
	return
}
