package suggestions

import (
	"github.com/honehq/hone"
)

// CheckFilter reports the first field of a filter that is wrong.
func CheckFilter(f Filter) error {
	if f.MatchType != "" && !validMatch(f.MatchType) {
		return hone.FieldError("match_type", "match_type must be exact, partial, prefix or none, not %q", f.MatchType)
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Until.After(f.Since) {
		return hone.FieldError("until", "until must be after since")
	}
	return nil
}
