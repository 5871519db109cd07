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
	var r rawTime
	r.Scan("yesterday")
	if _, err := r.Time(); err == nil {
		t.Error("unreadable timestamp accepted")
	}
}
