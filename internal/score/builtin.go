package score

// Names of the built-in configs that hone's own judgments use.
const (
	// Thumbs is 👍 (true) or 👎 (false) on a response.
	Thumbs = "thumbs"
	// WorkshopLabel is a workshop member's GOOD or BAD on a trace.
	WorkshopLabel = "workshop_label"
	// Good and Bad are WorkshopLabel's categories.
	Good = "GOOD"
	Bad  = "BAD"
)

// Dimensions are the !score dimensions of the metrics spec, each numeric
// from 1 to 5 in whole steps.
var Dimensions = []string{"professionalism", "empathy", "clarity", "actionability", "compliance"}

// BuiltInID is the id of the built-in config name.
func BuiltInID(name string) string { return "builtin-" + name }

// BuiltIns are the configs that exist from the first start (migration
// 00012 creates them), in that order.
func BuiltIns() []Config {
	one, five := 1.0, 5.0
	descriptions := map[string]string{
		"professionalism": "How professional is the tone? 1 unprofessional, 3 adequate, 5 exemplary.",
		"empathy":         "How empathetic is the response? 1 cold, 3 neutral, 5 highly empathetic.",
		"clarity":         "How clear and understandable is the response? 1 confusing, 3 clear, 5 crystal clear.",
		"actionability":   "How actionable are the next steps? 1 vague, 3 specific, 5 step by step.",
		"compliance":      "How well does it handle compliance (FMLA, ADA, etc.)? 1 risky, 3 safe, 5 excellent escalation.",
	}
	var out []Config
	for _, name := range Dimensions {
		out = append(out, Config{ID: BuiltInID(name), Name: name, DataType: Numeric, Min: &one, Max: &five, Step: &one,
			Description: descriptions[name], Version: 1, BuiltIn: true})
	}
	zero := 0.0
	out = append(out,
		Config{ID: BuiltInID(Thumbs), Name: Thumbs, DataType: Boolean, Version: 1, BuiltIn: true,
			Description: "👍 (true) or 👎 (false) on a response."},
		Config{ID: BuiltInID(WorkshopLabel), Name: WorkshopLabel, DataType: Categorical, Version: 1, BuiltIn: true,
			Categories:  []Category{{Label: Good, Value: &one}, {Label: Bad, Value: &zero}},
			Description: "A workshop member's review of a trace: GOOD or BAD."})
	return out
}

// fixed reports whether a built-in config may not be archived: hone's own
// commands record their judgments under it.
func fixed(c *Config) bool { return c.BuiltIn && (c.Name == Thumbs || c.Name == WorkshopLabel) }
