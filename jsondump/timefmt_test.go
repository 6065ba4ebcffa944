package jsondump

import (
	"math"
	"testing"
)

func TestInstantText(t *testing.T) {
	micros := []struct {
		v    int64
		want string
	}{
		{1525385507816568, "2018-05-03T22:11:47.816568Z"},
		{1525385507816000, "2018-05-03T22:11:47.816Z"},
		{1525385507000000, "2018-05-03T22:11:47Z"},
		{1525385460000000, "2018-05-03T22:11:00Z"}, // seconds always printed
		{0, "1970-01-01T00:00:00Z"},
		{-1, "1969-12-31T23:59:59.999999Z"},
		{-1000, "1969-12-31T23:59:59.999Z"},
		{253402300800000000, "+10000-01-01T00:00:00Z"},
		{-62167219200000000, "0000-01-01T00:00:00Z"},
		{-62167219200000001, "-0001-12-31T23:59:59.999999Z"},
		{math.MaxInt64, "+294247-01-10T04:00:54.775807Z"},
		{math.MinInt64, "-290308-12-21T19:59:05.224192Z"},
	}
	for _, c := range micros {
		if got := string(appendMicrosInstant(nil, c.v)); got != c.want {
			t.Errorf("micros %d: got %s want %s", c.v, got, c.want)
		}
		back, err := parseISOInstant(c.want, true)
		if err != nil || back != c.v {
			t.Errorf("parse %s: %d %v, want %d", c.want, back, err, c.v)
		}
	}
	secs := []struct {
		v    int64
		want string
	}{
		{1543905466, "2018-12-04T06:37:46Z"},
		{math.MaxInt32, "2038-01-19T03:14:07Z"},
		{math.MinInt32, "1901-12-13T20:45:52Z"},
	}
	for _, c := range secs {
		if got := string(appendSecondsInstant(nil, c.v)); got != c.want {
			t.Errorf("secs %d: got %s want %s", c.v, got, c.want)
		}
		if back, err := parseISOInstant(c.want, false); err != nil || back != c.v {
			t.Errorf("parse %s: %d %v", c.want, back, err)
		}
	}
}

func TestParseTimeValue(t *testing.T) {
	ok := []struct {
		raw    string
		micros bool
		want   int64
	}{
		{`1525385507816568`, true, 1525385507816568},
		{`"1525385507816568"`, true, 1525385507816568},
		{`"-5"`, true, -5},
		{`"2018-05-03T22:11:47.816568Z"`, true, 1525385507816568},
		{`"2018-05-04T00:11:47.816568+02:00"`, true, 1525385507816568},
		{`"2018-05-04T00:11:47.816568+0200"`, true, 1525385507816568},
		{`"2018-05-03T21:11:47.8165680-01"`, true, 1525385507816568},
		{`"2018-05-03T22:11:47.816568000Z"`, true, 1525385507816568},
		{`"2018-05-03T22:11Z"`, true, 1525385460000000},
		{`"2018-12-04T06:37:46Z"`, false, 1543905466},
		{`"2018-12-04T06:37:46.000Z"`, false, 1543905466},
		{`"2016-02-29T00:00:00Z"`, false, 1456704000},
	}
	for _, c := range ok {
		got, err := parseTimeValue([]byte(c.raw), c.micros)
		if err != nil || got != c.want {
			t.Errorf("%s: %d %v, want %d", c.raw, got, err, c.want)
		}
	}
	bad := []struct {
		raw    string
		micros bool
	}{
		{`1.5`, true},
		{`1e3`, true},
		{`"abc"`, true},
		{`"2018-05-03T22:11:47.8165681Z"`, true}, // below the microsecond
		{`"2018-05-03T22:11:47.5Z"`, false},      // fraction on a seconds field
		{`"2018-05-03T22:11:47"`, true},          // no zone
		{`"2018-02-30T00:00:00Z"`, true},
		{`"2018-13-01T00:00:00Z"`, true},
		{`"2018-05-03T24:00:00Z"`, true},
		{`"99999999999999999999"`, true},
		{`true`, true},
		{``, true},
		{`"2018-05-03T22:11:47Zjunk"`, true},
	}
	for _, c := range bad {
		if v, err := parseTimeValue([]byte(c.raw), c.micros); err == nil {
			t.Errorf("%s: accepted as %d", c.raw, v)
		}
	}
	if _, err := parseInt32Value([]byte(`"3000000000"`), false); err == nil {
		t.Error("int32 overflow accepted")
	}
}
