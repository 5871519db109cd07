package storage

import (
	"testing"
	"time"
)

func TestRawTime(t *testing.T) {
	want := time.Date(2025, 10, 24, 10, 30, 15, 123456000, time.UTC)
	for _, tt := range []struct {
		in   any
		want time.Time
	}{
		{"2025-10-24 10:30:15.123456+00:00", want},
		{"2025-10-24 10:30:15+00:00", want.Truncate(time.Second)},
		{"2025-10-24 12:30:15.123456+02:00", want},
		{"2025-10-24T10:30:15.123456Z", want},
		{[]byte("2025-10-24 10:30:15.123456+00:00"), want},
		{want.In(time.FixedZone("x", 3600)), want},
	} {
		var r rawTime
		if err := r.Scan(tt.in); err != nil {
			t.Fatal(err)
		}
		got, err := r.Time()
		if err != nil || !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("%v: got %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"yesterday", "2025-13-24 10:30:15+00:00", "2025-00-24 10:30:15+00:00",
		"2025-02-29 10:30:15+00:00", "2025-04-31 10:30:15.5+00:00", "2025-10-24 25:30:15+00:00",
		"2025-10-24 10:60:15+00:00", "2025-10-24 10:30:61+00:00", "2025-10-00 10:30:15+00:00"} {
		var r rawTime
		r.Scan(bad)
		if got, err := r.Time(); err == nil {
			t.Errorf("impossible timestamp %q read as %v", bad, got)
		}
	}
	var r rawTime
	r.Scan("2024-02-29 23:59:59.999999+00:00")
	if got, err := r.Time(); err != nil || got != time.Date(2024, 2, 29, 23, 59, 59, 999999000, time.UTC) {
		t.Errorf("leap day: %v, %v", got, err)
	}
}
