package score

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/quality"
)

func num(v float64) *float64 { return &v }

func TestConfigValidate(t *testing.T) {
	for _, tt := range []struct {
		name  string
		c     Config
		field string
	}{
		{"numeric", Config{Name: "Helpfulness", DataType: Numeric, Min: num(1), Max: num(10), Step: num(1)}, ""},
		{"numeric unbounded", Config{Name: "latency", DataType: Numeric}, ""},
		{"boolean", Config{Name: "thumbs2", DataType: Boolean}, ""},
		{"text", Config{Name: "why", DataType: Text, Description: "  why it is wrong  "}, ""},
		{"categorical", Config{Name: "tone", DataType: Categorical, Categories: []Category{{Label: "formal", Value: num(1)}, {Label: "casual"}}}, ""},
		{"no name", Config{DataType: Boolean}, "name"},
		{"name with a space", Config{Name: "my score", DataType: Boolean}, "name"},
		{"name starting with a digit", Config{Name: "1st", DataType: Boolean}, "name"},
		{"name too long", Config{Name: strings.Repeat("a", MaxNameLength+1), DataType: Boolean}, "name"},
		{"name with a colon", Config{Name: "a:b", DataType: Boolean}, "name"},
		{"no type", Config{Name: "x"}, "data_type"},
		{"unknown type", Config{Name: "x", DataType: "likert"}, "data_type"},
		{"min on boolean", Config{Name: "x", DataType: Boolean, Min: num(0)}, "min"},
		{"step on text", Config{Name: "x", DataType: Text, Step: num(1)}, "step"},
		{"min not below max", Config{Name: "x", DataType: Numeric, Min: num(5), Max: num(5)}, "max"},
		{"zero step", Config{Name: "x", DataType: Numeric, Step: num(0)}, "step"},
		{"huge max", Config{Name: "x", DataType: Numeric, Max: num(2e15)}, "max"},
		{"categories on numeric", Config{Name: "x", DataType: Numeric, Categories: []Category{}}, "categories"},
		{"no categories", Config{Name: "x", DataType: Categorical}, "categories"},
		{"empty label", Config{Name: "x", DataType: Categorical, Categories: []Category{{Label: " "}}}, "categories.0.label"},
		{"label with space around", Config{Name: "x", DataType: Categorical, Categories: []Category{{Label: "a"}, {Label: "b "}}}, "categories.1.label"},
		{"label twice in other case", Config{Name: "x", DataType: Categorical, Categories: []Category{{Label: "Good"}, {Label: "GOOD"}}}, "categories.1.label"},
		{"description too long", Config{Name: "x", DataType: Text, Description: strings.Repeat("é", MaxDescriptionLength+1)}, "description"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.validate()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if tt.c.Name != strings.ToLower(tt.c.Name) || tt.c.Description != strings.TrimSpace(tt.c.Description) {
					t.Errorf("not normalised: %+v", tt.c)
				}
				return
			}
			if hone.ErrorCode(err) != hone.EINVALID || hone.ErrorField(err) != tt.field {
				t.Fatalf("got %v, want an error naming %s", err, tt.field)
			}
		})
	}
}

func TestCheckValue(t *testing.T) {
	likert := &Config{Name: "empathy", DataType: Numeric, Min: num(1), Max: num(5), Step: num(1)}
	half := &Config{Name: "stars", DataType: Numeric, Min: num(0.5), Max: num(5), Step: num(0.5)}
	free := &Config{Name: "latency", DataType: Numeric}
	label := &Config{Name: "workshop_label", DataType: Categorical, Categories: []Category{{Label: "GOOD", Value: num(1)}, {Label: "BAD", Value: num(0)}}}
	thumbs := &Config{Name: "thumbs", DataType: Boolean}
	text := &Config{Name: "why", DataType: Text}
	for _, tt := range []struct {
		name   string
		c      *Config
		raw    string
		typed  any
		number *float64
		ok     bool
	}{
		{"whole", likert, "4", 4.0, num(4), true},
		{"whole written 4.0", likert, "4.0", 4.0, num(4), true},
		{"whole written 4e0", likert, "4e0", 4.0, num(4), true},
		{"below min", likert, "0", nil, nil, false},
		{"above max", likert, "6", nil, nil, false},
		{"between steps", likert, "2.5", nil, nil, false},
		{"half steps", half, "2.5", 2.5, num(2.5), true},
		{"off the half steps", half, "2.25", nil, nil, false},
		{"a number as text", likert, `"4"`, nil, nil, false},
		{"null", likert, "null", nil, nil, false},
		{"absent", likert, "", nil, nil, false},
		{"unbounded", free, "-12.75", -12.75, num(-12.75), true},
		{"minus zero is zero", free, "-0", 0.0, num(0), true},
		{"beyond a double", free, "1e400", nil, nil, false},
		{"beyond the bound", free, "2e15", nil, nil, false},
		{"category", label, `"GOOD"`, "GOOD", num(1), true},
		{"category in other case", label, `"bad"`, "BAD", num(0), true},
		{"category with space around", label, `" good "`, "GOOD", num(1), true},
		{"unknown category", label, `"OK"`, nil, nil, false},
		{"category as a number", label, "1", nil, nil, false},
		{"true", thumbs, "true", true, num(1), true},
		{"false", thumbs, "false", false, num(0), true},
		{"boolean as text", thumbs, `"true"`, nil, nil, false},
		{"boolean as a number", thumbs, "1", nil, nil, false},
		{"text", text, `"too formal"`, "too formal", nil, true},
		{"blank text", text, `"  "`, nil, nil, false},
		{"text with a NUL", text, `"a\u0000b"`, "a\ufffdb", nil, true},
		{"text as a number", text, "3", nil, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, err := tt.c.check(json.RawMessage(tt.raw))
			if !tt.ok {
				if hone.ErrorCode(err) != hone.EINVALID || hone.ErrorField(err) != "value" || !strings.Contains(hone.ErrorMessage(err), tt.c.Name) {
					t.Fatalf("got %v %v, want an error naming value and the config", v.typed, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v.typed != tt.typed || (v.number == nil) != (tt.number == nil) || v.number != nil && *v.number != *tt.number {
				t.Fatalf("got %#v %v, want %#v %v", v.typed, show(v.number), tt.typed, show(tt.number))
			}
		})
	}
}

func show(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestTake(t *testing.T) {
	for _, tt := range []struct {
		c    Config
		want string
	}{
		{Config{DataType: Numeric, Min: num(1), Max: num(5), Step: num(1)}, "a whole number from 1 to 5"},
		{Config{DataType: Numeric, Min: num(0), Max: num(1)}, "a number from 0 to 1"},
		{Config{DataType: Numeric, Step: num(0.5), Min: num(0)}, "a number in steps of 0.5 from 0"},
		{Config{DataType: Numeric, Max: num(9)}, "a number up to 9"},
		{Config{DataType: Categorical, Categories: []Category{{Label: "A"}, {Label: "B"}, {Label: "C"}}}, "A, B or C"},
		{Config{DataType: Boolean}, "true or false"},
		{Config{DataType: Text}, "text"},
	} {
		if got := tt.c.Take(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.c, got, tt.want)
		}
	}
}

func TestInputClean(t *testing.T) {
	base := func() Input { return Input{TurnID: "t1", Config: "empathy", Value: Number(4)} }
	for _, tt := range []struct {
		name  string
		edit  func(*Input)
		field string
	}{
		{"turn", func(*Input) {}, ""},
		{"trace", func(in *Input) { in.TurnID, in.WorkshopID, in.TraceID = "", "w1", "tr1" }, ""},
		{"no target", func(in *Input) { in.TurnID = "" }, "turn_id"},
		{"turn and trace", func(in *Input) { in.WorkshopID, in.TraceID = "w1", "tr1" }, "workshop_id"},
		{"turn and trace id", func(in *Input) { in.TraceID = "tr1" }, "trace_id"},
		{"trace without workshop", func(in *Input) { in.TurnID, in.TraceID = "", "tr1" }, "workshop_id"},
		{"workshop without trace", func(in *Input) { in.TurnID, in.WorkshopID = "", "w1" }, "trace_id"},
		{"no config", func(in *Input) { in.Config = "" }, "config"},
		{"id", func(in *Input) { in.ID = "app-7:x" }, ""},
		{"bad id", func(in *Input) { in.ID = "-x" }, "id"},
		{"long id", func(in *Input) { in.ID = strings.Repeat("a", MaxIDLength+1) }, "id"},
		{"unknown source", func(in *Input) { in.Source = "slack" }, "source"},
		{"source in upper case", func(in *Input) { in.Source = "API" }, "source"},
		{"long author", func(in *Input) { in.Author = strings.Repeat("é", MaxAuthorLength+1) }, "author"},
		{"long comment", func(in *Input) { in.Comment = strings.Repeat("é", MaxTextLength+1) }, "comment"},
		{"long turn id", func(in *Input) { in.TurnID = strings.Repeat("t", MaxTargetLength+1) }, "turn_id"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := base()
			tt.edit(&in)
			err := in.clean()
			if tt.field == "" {
				if err != nil || in.Source != SourceAPI && in.Source != "" {
					t.Fatalf("refused: %v (source %q)", err, in.Source)
				}
				return
			}
			if hone.ErrorField(err) != tt.field {
				t.Fatalf("got %v, want an error naming %s", err, tt.field)
			}
		})
	}
}

func TestFingerprint(t *testing.T) {
	a := &Score{TurnID: "t1", ConfigID: "c", Value: 4.0, Source: "api"}
	b := *a
	if a.fingerprint() != b.fingerprint() {
		t.Fatal("the same score has two fingerprints")
	}
	for _, edit := range []func(*Score){
		func(s *Score) { s.Value = 5.0 }, func(s *Score) { s.Comment = "x" }, func(s *Score) { s.Author = "meg" },
		func(s *Score) { s.Source = "chat" }, func(s *Score) { s.ConfigID = "d" }, func(s *Score) { s.TurnID = "t2" },
		func(s *Score) { s.TurnID, s.WorkshopID, s.TraceID = "", "t1", "" },
	} {
		c := *a
		edit(&c)
		if c.fingerprint() == a.fingerprint() {
			t.Errorf("%+v has the fingerprint of %+v", c, *a)
		}
	}
}

// The built-in dimensions are the metrics spec's, as the default metric
// set names them.
func TestBuiltIns(t *testing.T) {
	if !slices.Equal(Dimensions, quality.DefaultSubjective) {
		t.Fatalf("dimensions %v, the metric set has %v", Dimensions, quality.DefaultSubjective)
	}
	for _, c := range BuiltIns() {
		if err := c.validate(); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
		if c.ID != BuiltInID(c.Name) || !c.BuiltIn || c.Version != 1 {
			t.Errorf("%+v", c)
		}
	}
}
