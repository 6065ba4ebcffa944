package schema

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Java number text, as sstabledump prints it.
//
// Float.toString / Double.toString: the shortest decimal digits that round
// trip to the same value (Go's strconv with precision -1 for the value's
// width), laid out as Java does: plain notation with at least one fraction
// digit when 1e-3 <= |x| < 1e7 ("36.6", "100.0", "0.001"), otherwise
// d.dddE<exp> ("1.0E10", "1.234E-5"); "NaN", "Infinity", "-Infinity",
// "0.0", "-0.0". (Java 8's FloatingDecimal is not always shortest; the rare
// differences — mostly subnormal numbers — are not reproduced.)
//
// BigDecimal.toString: the unscaled digits with the decimal point placed by
// the scale when scale >= 0 and the adjusted exponent is >= -6, otherwise
// scientific notation d.dddE+n / E-n.

// appendJavaFloat appends Java's text of a float (bits 32) or double
// (bits 64).
func appendJavaFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	var buf [40]byte
	s := strconv.AppendFloat(buf[:0], f, 'e', -1, bits) // [-]d[.ddd]e±xx
	if s[0] == '-' {
		dst = append(dst, '-')
		s = s[1:]
	}
	e := 0
	for e < len(s) && s[e] != 'e' {
		e++
	}
	exp, _ := strconv.Atoi(string(s[e+1:]))
	var digits [24]byte
	d := append(digits[:0], s[0])
	if e > 1 {
		d = append(d, s[2:e]...)
	}
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		point := exp + 1 // digits before the decimal point
		switch {
		case point <= 0:
			dst = append(dst, '0', '.')
			for i := 0; i < -point; i++ {
				dst = append(dst, '0')
			}
			return append(dst, d...)
		case point >= len(d):
			dst = append(dst, d...)
			for i := len(d); i < point; i++ {
				dst = append(dst, '0')
			}
			return append(dst, '.', '0')
		}
		dst = append(dst, d[:point]...)
		dst = append(dst, '.')
		return append(dst, d[point:]...)
	}
	if len(d) == 1 {
		// Java's scientific form has at least two significant digits, the
		// two closest to the exact value: d.0 for normal numbers, but
		// 4.9E-324 for the smallest subnormal double (shortest: 5e-324).
		s = strconv.AppendFloat(buf[:0], math.Abs(f), 'e', 1, bits)
		d = append(d[:0], s[0], s[2])
		exp, _ = strconv.Atoi(string(s[4:]))
		if d[1] == '0' {
			d = d[:1]
		}
	}
	dst = append(dst, d[0], '.')
	if len(d) > 1 {
		dst = append(dst, d[1:]...)
	} else {
		dst = append(dst, '0')
	}
	dst = append(dst, 'E')
	return strconv.AppendInt(dst, int64(exp), 10)
}

// appendBigDecimal appends Java's BigDecimal.toString of unscaled×10^-scale.
func appendBigDecimal(dst []byte, unscaled *big.Int, scale int32) []byte {
	if unscaled.Sign() < 0 {
		dst = append(dst, '-')
	}
	coeff := new(big.Int).Abs(unscaled).Text(10)
	if scale == 0 {
		return append(dst, coeff...)
	}
	adjusted := -int64(scale) + int64(len(coeff)-1)
	if scale > 0 && adjusted >= -6 {
		pad := int64(scale) - int64(len(coeff))
		if pad >= 0 {
			dst = append(dst, '0', '.')
			for i := int64(0); i < pad; i++ {
				dst = append(dst, '0')
			}
			return append(dst, coeff...)
		}
		point := len(coeff) - int(scale)
		dst = append(dst, coeff[:point]...)
		dst = append(dst, '.')
		return append(dst, coeff[point:]...)
	}
	dst = append(dst, coeff[0])
	if len(coeff) > 1 {
		dst = append(dst, '.')
		dst = append(dst, coeff[1:]...)
	}
	dst = append(dst, 'E')
	if adjusted > 0 {
		dst = append(dst, '+')
	}
	return strconv.AppendInt(dst, adjusted, 10)
}

// maxDecimalDigits bounds the digits of a parsed decimal or varint text.
const maxDecimalDigits = 1 << 16

// parseBigDecimal parses decimal text as Java's new BigDecimal(String)
// does: [+-] digits [. digits] [(e|E) [+-] digits], at least one digit.
func parseBigDecimal(s string) (*big.Int, int32, error) {
	if len(s) > maxDecimalDigits {
		return nil, 0, errors.New("too many digits")
	}
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var digits strings.Builder
	frac := 0
	seenPoint, seenDigit := false, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits.WriteByte(c)
			seenDigit = true
			if seenPoint {
				frac++
			}
		case c == '.' && !seenPoint:
			seenPoint = true
		default:
			goto exponent
		}
	}
exponent:
	if !seenDigit {
		return nil, 0, errors.New("no digits")
	}
	exp := int64(0)
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return nil, 0, errors.New("unexpected character")
		}
		e, err := strconv.ParseInt(s[i+1:], 10, 64)
		if err != nil {
			return nil, 0, errors.New("bad exponent")
		}
		exp = e
	}
	if exp < -math.MaxInt32*2 || exp > math.MaxInt32*2 {
		return nil, 0, errors.New("scale out of range")
	}
	scale := int64(frac) - exp
	if scale < math.MinInt32 || scale > math.MaxInt32 {
		return nil, 0, errors.New("scale out of range")
	}
	u, ok := new(big.Int).SetString(digits.String(), 10)
	if !ok {
		return nil, 0, errors.New("bad digits")
	}
	if neg {
		u.Neg(u)
	}
	return u, int32(scale), nil
}

// parseBigInteger parses an integer text exactly: [+-] digits.
func parseBigInteger(s string) (*big.Int, error) {
	if len(s) > maxDecimalDigits {
		return nil, errors.New("too many digits")
	}
	body := s
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	if body == "" {
		return nil, errors.New("no digits")
	}
	for i := 0; i < len(body); i++ {
		if body[i] < '0' || body[i] > '9' {
			return nil, errors.New("not an integer")
		}
	}
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil, errors.New("not an integer")
	}
	return v, nil
}
