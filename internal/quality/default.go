package quality

import (
	_ "embed"
	"sync"
)

// defaultYAML is hone's default metric set.
//
//go:embed default.yaml
var defaultYAML []byte

// defaultSet parses defaultYAML once.
var defaultSet = sync.OnceValue(func() *Set {
	s, err := Parse(defaultYAML, "yaml")
	if err != nil {
		panic("metrics: default.yaml: " + err.Error())
	}
	return s
})

// Default returns hone's default metric set, which reproduces the ERA response
// metrics spec: the nine objective metrics with the spec's detection rules,
// the five subjective scores and the 0.4/0.6 composite weights.
func Default() *Set {
	return defaultSet()
}

// DefaultYAML returns the source of the default metric set, a starting point
// for custom sets.
func DefaultYAML() []byte {
	return append([]byte(nil), defaultYAML...)
}
