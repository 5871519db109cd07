package score

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/honehq/hone"
)

// Data types of a score config.
const (
	Numeric     = "numeric"
	Categorical = "categorical"
	Boolean     = "boolean"
	Text        = "text"
)

// DataTypes lists every data type, in the order the API documents them.
var DataTypes = []string{Numeric, Categorical, Boolean, Text}

// Limits of a config.
const (
	MaxNameLength        = 64
	MaxDescriptionLength = 2000
	MaxCategories        = 50
	MaxLabelLength       = 64
)

// NamePattern is the form of a config name: a letter, then letters,
// digits, _, . or -. Names are kept in lower case, so that "Empathy" and
// "empathy" are one name.
const NamePattern = `^[A-Za-z][A-Za-z0-9_.-]*$`

var namePattern = regexp.MustCompile(NamePattern)

// Category is one answer of a categorical config, with an optional number
// it stands for (GOOD 1, BAD 0), which exports carry beside the label.
type Category struct {
	Label string   `json:"label"`
	Value *float64 `json:"value,omitempty"`
}

// Config is a named, versioned definition of one kind of judgment: what a
// score of it holds and which values are valid.
type Config struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	DataType string `json:"data_type"`
	// Min, Max and Step bound a numeric config's values: each optional; a
	// value is a whole number of steps from Min (from 0 without Min).
	Min  *float64 `json:"min,omitempty"`
	Max  *float64 `json:"max,omitempty"`
	Step *float64 `json:"step,omitempty"`
	// Categories are a categorical config's answers, in order.
	Categories  []Category `json:"categories,omitempty"`
	Description string     `json:"description,omitempty"`
	// Archived configs take no new scores; their scores stay.
	Archived bool `json:"archived"`
	// Version counts the config's changes, from 1.
	Version int `json:"version"`
	// BuiltIn configs are hone's own (the !score dimensions, thumbs,
	// workshop_label): their definition is fixed.
	BuiltIn   bool      `json:"built_in"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// ConfigInput is a new config, the body of POST /score-configs.
type ConfigInput struct {
	Name        string     `json:"name"`
	DataType    string     `json:"data_type"`
	Min         *float64   `json:"min,omitempty"`
	Max         *float64   `json:"max,omitempty"`
	Step        *float64   `json:"step,omitempty"`
	Categories  []Category `json:"categories,omitempty"`
	Description string     `json:"description,omitempty"`
}

// ConfigUpdate changes a config, the body of PATCH /score-configs/{id}:
// what is left out (or null) stays as it is.
type ConfigUpdate struct {
	Name        *string    `json:"name,omitempty"`
	Description *string    `json:"description,omitempty"`
	Min         *float64   `json:"min,omitempty"`
	Max         *float64   `json:"max,omitempty"`
	Step        *float64   `json:"step,omitempty"`
	Categories  []Category `json:"categories,omitempty"`
	Archived    *bool      `json:"archived,omitempty"`
}

// cleanName checks a config name and returns it in lower case.
func cleanName(field, name string) (string, error) {
	switch {
	case name == "":
		return "", hone.FieldError(field, "%s is required: a name such as helpfulness", field)
	case len(name) > MaxNameLength:
		return "", hone.FieldError(field, "%s is longer than %d characters", field, MaxNameLength)
	case !namePattern.MatchString(name):
		return "", hone.FieldError(field, "%s %q is not a name: a letter, then letters, digits, _, . or -", field, name)
	}
	return strings.ToLower(name), nil
}

// finite reports whether p is nil or a finite number.
func finite(p *float64) bool { return p == nil || !math.IsNaN(*p) && !math.IsInf(*p, 0) }

// validate checks the definition of c (its name, type, bounds and
// categories) and normalises it.
func (c *Config) validate() error {
	var err error
	if c.Name, err = cleanName("name", c.Name); err != nil {
		return err
	}
	c.Description = strings.TrimSpace(hone.CleanText(c.Description))
	if hone.Chars(c.Description) > MaxDescriptionLength {
		return hone.FieldError("description", "description is longer than %d characters", MaxDescriptionLength)
	}
	switch c.DataType {
	case Numeric, Categorical, Boolean, Text:
	case "":
		return hone.FieldError("data_type", "data_type is required: one of %s", strings.Join(DataTypes, ", "))
	default:
		return hone.FieldError("data_type", "data_type must be one of %s, not %q", strings.Join(DataTypes, ", "), c.DataType)
	}
	for _, b := range []struct {
		name string
		p    *float64
	}{{"min", c.Min}, {"max", c.Max}, {"step", c.Step}} {
		switch {
		case b.p != nil && c.DataType != Numeric:
			return hone.FieldError(b.name, "%s is for numeric configs only", b.name)
		case !finite(b.p) || b.p != nil && math.Abs(*b.p) > MaxNumber:
			return hone.FieldError(b.name, "%s must be a number from -1e15 to 1e15", b.name)
		}
	}
	if c.Min != nil && c.Max != nil && *c.Min >= *c.Max {
		return hone.FieldError("max", "max (%g) must be greater than min (%g)", *c.Max, *c.Min)
	}
	if c.Step != nil && *c.Step <= 0 {
		return hone.FieldError("step", "step must be greater than 0, not %g", *c.Step)
	}
	if c.DataType != Categorical {
		if c.Categories != nil {
			return hone.FieldError("categories", "categories are for categorical configs only")
		}
		return nil
	}
	switch {
	case len(c.Categories) == 0:
		return hone.FieldError("categories", "categories are required: the answers of a categorical config, such as [{\"label\": \"GOOD\"}, {\"label\": \"BAD\"}]")
	case len(c.Categories) > MaxCategories:
		return hone.FieldError("categories", "a config has at most %d categories", MaxCategories)
	}
	for i, cat := range c.Categories {
		field := fmt.Sprintf("categories.%d", i)
		switch {
		case strings.TrimSpace(cat.Label) == "":
			return hone.FieldError(field+".label", "%s.label is required", field)
		case cat.Label != strings.TrimSpace(cat.Label):
			return hone.FieldError(field+".label", "%s.label %q has white space around it", field, cat.Label)
		case hone.Chars(cat.Label) > MaxLabelLength:
			return hone.FieldError(field+".label", "%s.label is longer than %d characters", field, MaxLabelLength)
		case !finite(cat.Value) || cat.Value != nil && math.Abs(*cat.Value) > MaxNumber:
			return hone.FieldError(field+".value", "%s.value must be a number from -1e15 to 1e15", field)
		}
		c.Categories[i].Label = hone.CleanText(cat.Label)
		for _, prev := range c.Categories[:i] {
			if strings.EqualFold(prev.Label, c.Categories[i].Label) {
				return hone.FieldError(field+".label", "category %q is given twice", cat.Label)
			}
		}
	}
	return nil
}

// MaxNumber bounds the numbers of scores and configs, so that every
// database keeps them exactly as a double.
const MaxNumber = 1e15

// definitionChanged reports whether u changes what c's scores may hold:
// its bounds, step or categories.
func (u *ConfigUpdate) definitionChanged(c *Config) bool {
	differs := func(a, b *float64) bool { return a != nil && (b == nil || *a != *b) }
	if differs(u.Min, c.Min) || differs(u.Max, c.Max) || differs(u.Step, c.Step) {
		return true
	}
	if u.Categories == nil {
		return false
	}
	if len(u.Categories) != len(c.Categories) {
		return true
	}
	for i, cat := range u.Categories {
		old := c.Categories[i]
		if cat.Label != old.Label || (cat.Value == nil) != (old.Value == nil) || cat.Value != nil && *cat.Value != *old.Value {
			return true
		}
	}
	return false
}

// apply returns c with u's changes, and whether anything changed.
func (u *ConfigUpdate) apply(c *Config) (*Config, bool, error) {
	out := *c
	out.Categories = slices.Clone(c.Categories)
	if u.Name != nil {
		name, err := cleanName("name", *u.Name)
		if err != nil {
			return nil, false, err
		}
		out.Name = name
	}
	if u.Description != nil {
		out.Description = *u.Description
	}
	if u.Min != nil {
		out.Min = u.Min
	}
	if u.Max != nil {
		out.Max = u.Max
	}
	if u.Step != nil {
		out.Step = u.Step
	}
	if u.Categories != nil {
		out.Categories = slices.Clone(u.Categories)
	}
	if u.Archived != nil {
		out.Archived = *u.Archived
	}
	if err := out.validate(); err != nil {
		return nil, false, err
	}
	changed := out.Name != c.Name || out.Description != c.Description || out.Archived != c.Archived ||
		u.definitionChanged(c)
	return &out, changed, nil
}

// Take names what a config's scores hold, for messages: "a whole number
// from 1 to 5", "GOOD or BAD", "true or false", "text".
func (c *Config) Take() string {
	switch c.DataType {
	case Numeric:
		kind := "a number"
		if c.Step != nil && *c.Step == 1 && (c.Min == nil || *c.Min == math.Trunc(*c.Min)) {
			kind = "a whole number"
		} else if c.Step != nil {
			kind = fmt.Sprintf("a number in steps of %g", *c.Step)
		}
		switch {
		case c.Min != nil && c.Max != nil:
			return fmt.Sprintf("%s from %g to %g", kind, *c.Min, *c.Max)
		case c.Min != nil:
			return fmt.Sprintf("%s from %g", kind, *c.Min)
		case c.Max != nil:
			return fmt.Sprintf("%s up to %g", kind, *c.Max)
		}
		return kind
	case Categorical:
		labels := make([]string, len(c.Categories))
		for i, cat := range c.Categories {
			labels[i] = cat.Label
		}
		if len(labels) == 1 {
			return labels[0]
		}
		return strings.Join(labels[:len(labels)-1], ", ") + " or " + labels[len(labels)-1]
	case Boolean:
		return "true or false"
	}
	return "text"
}
