package telemetry

import (
	"testing"
)

func TestPrefersHTML(t *testing.T) {
	for _, c := range []struct {
		accept string
		want   bool
	}{
		{"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8", true}, // Chromium, Firefox
		{"text/html, application/xhtml+xml, */*", true},
		{"application/xhtml+xml", true},
		{"text/html;q=0.9, text/plain;q=0.5", true},
		{"", false},    // Go's client
		{"*/*", false}, // curl
		{"application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5," +
			"text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2", false}, // Prometheus
		{"text/plain;version=0.0.4", false},
		{"text/html, text/plain", false}, // a tie goes to the metrics
		{"text/plain;q=0.5, text/html;q=0.4", false},
		{"text/html;q=0", false},
		{"text/html;q=x", false},
		{"text/*", false},
		{"garbage;;;", false},
	} {
		if got := PrefersHTML(c.accept); got != c.want {
			t.Errorf("PrefersHTML(%q) = %v, want %v", c.accept, got, c.want)
		}
	}
}
