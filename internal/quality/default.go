package quality

import (
	"embed"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// sets are hone's built-in metric sets, by name: general, the default, and
// era-hr, the HR assistant's set of the response metrics spec.
//
//go:embed sets/*.yaml
var sets embed.FS

// DefaultName is the built-in set used when none is chosen.
const DefaultName = "general"

// BuiltinNames lists the built-in metric sets.
var BuiltinNames = []string{"general", "era-hr"}

// builtins parses every built-in set once.
var builtins = sync.OnceValue(func() map[string]*Set {
	out := map[string]*Set{}
	for _, name := range BuiltinNames {
		s, err := Parse(BuiltinYAML(name), "yaml")
		if err != nil {
			panic("quality: sets/" + name + ".yaml: " + err.Error())
		}
		out[name] = s
	}
	return out
})

// Default returns hone's default metric set, general: the length and
// structure of the answer, a clarifying question where the user describes
// their own situation, a pointer to the retrieved context when there was
// some, and the application's time; with the five subjective scores of the
// response metrics spec and its 0.4/0.6 composite weights.
func Default() *Set { return builtins()[DefaultName] }

// Builtin returns the built-in set of that name, or nil.
func Builtin(name string) *Set { return builtins()[name] }

// BuiltinYAML returns the source of a built-in set, a starting point for
// custom sets; nil for an unknown name.
func BuiltinYAML(name string) []byte {
	b, err := sets.ReadFile("sets/" + name + ".yaml")
	if err != nil {
		return nil
	}
	return b
}

// DefaultYAML returns the source of the default metric set.
func DefaultYAML() []byte { return BuiltinYAML(DefaultName) }

// Open returns the metric set HONE_METRICS_FILE names: the default for "",
// a built-in set by its name, or else the set of the file at that path.
func Open(nameOrPath string) (*Set, error) {
	switch {
	case nameOrPath == "":
		return Default(), nil
	case slices.Contains(BuiltinNames, nameOrPath):
		return Builtin(nameOrPath), nil
	case !strings.ContainsAny(nameOrPath, `/\.`):
		return nil, fmt.Errorf("%q is neither a metric set file nor a built-in set (%s)", nameOrPath, strings.Join(BuiltinNames, ", "))
	}
	return Load(nameOrPath)
}
