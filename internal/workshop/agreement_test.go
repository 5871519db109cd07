package workshop

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"testing"
)

// fromCounts turns a subjects × categories count matrix into ratings: the
// raters of subject i are r0, r1, … in category order.
func fromCounts(counts [][]int) []Rating {
	var rs []Rating
	for i, row := range counts {
		r := 0
		for j, c := range row {
			for range c {
				rs = append(rs, Rating{TraceID: fmt.Sprintf("s%d", i+1), UserID: fmt.Sprintf("r%d", r), Label: fmt.Sprintf("c%d", j+1)})
				r++
			}
		}
	}
	return rs
}

// fromMatrix turns an observers × units reliability data matrix into
// ratings, unit by unit; "" is a missing value.
func fromMatrix(observers []string, matrix [][]string) []Rating {
	var rs []Rating
	for u := range matrix[0] {
		for o, row := range matrix {
			if row[u] != "" {
				rs = append(rs, Rating{TraceID: fmt.Sprintf("u%d", u+1), UserID: observers[o], Label: row[u]})
			}
		}
	}
	return rs
}

func ptr(f float64) *float64 { return &f }

// near reports whether got is nil exactly when want is, and otherwise
// within tol of it.
func near(got, want *float64, tol float64) bool {
	if got == nil || want == nil {
		return got == nil && want == nil
	}
	return math.Abs(*got-*want) <= tol
}

func show(f *float64) string {
	if f == nil {
		return "nil"
	}
	return fmt.Sprintf("%.6f", *f)
}

func TestAgreementFleissWikipediaExample(t *testing.T) {
	// Fleiss (1971)'s example as worked on Wikipedia's "Fleiss' kappa"
	// page: 10 subjects, 14 raters each, 5 categories. The page gives
	// P_i = 1.000, 0.253, 0.308, 0.440, 0.330, 0.462, 0.242, 0.176, 0.286,
	// 0.286, P̄ = 0.378, P̄e = 0.213 and κ = 0.210, all to 3 decimals.
	counts := [][]int{
		{0, 0, 0, 0, 14},
		{0, 2, 6, 4, 2},
		{0, 0, 3, 5, 6},
		{0, 3, 9, 2, 0},
		{2, 2, 8, 1, 1},
		{7, 7, 0, 0, 0},
		{3, 2, 6, 3, 0},
		{2, 5, 3, 2, 2},
		{6, 5, 2, 1, 0},
		{0, 2, 2, 3, 7},
	}
	perSubject := []float64{1.000, 0.253, 0.308, 0.440, 0.330, 0.462, 0.242, 0.176, 0.286, 0.286}
	const tol = 0.0005

	got := ComputeAgreement(fromCounts(counts))

	if !near(got.FleissKappa, ptr(0.210), tol) {
		t.Errorf("FleissKappa = %s, want 0.210", show(got.FleissKappa))
	}
	if got.FleissTraces != 10 {
		t.Errorf("FleissTraces = %d, want 10", got.FleissTraces)
	}
	if len(got.Traces) != len(perSubject) {
		t.Fatalf("%d traces, want %d", len(got.Traces), len(perSubject))
	}
	for i, want := range perSubject {
		tr := got.Traces[i]
		if tr.TraceID != fmt.Sprintf("s%d", i+1) || tr.Reviewers != 14 {
			t.Errorf("trace %d = %s with %d reviewers, want s%d with 14", i, tr.TraceID, tr.Reviewers, i+1)
		}
		if !near(tr.Agreement, &want, tol) {
			t.Errorf("P_%d = %s, want %.3f", i+1, show(tr.Agreement), want)
		}
	}
}

func TestAgreementCohenWikipediaExample(t *testing.T) {
	// Wikipedia's "Cohen's kappa" worked example: 50 proposals, both
	// readers yes on 20, A yes and B no on 5, A no and B yes on 10, both no
	// on 15: p_o = 0.7, p_e = 0.5, κ = 0.4.
	// With two raters Fleiss' kappa is Scott's π (Fleiss 1971):
	// p = (0.55, 0.45), P̄e = 0.505, π = (0.7 − 0.505)/(1 − 0.505) = 13/33;
	// and nominal α = 1 − (n−1)/n·(1−π) with n = 100 values (Krippendorff
	// 2011), which is 1 − 0.99·20/33 = 0.4.
	var rs []Rating
	add := func(n int, a, b string) {
		for range n {
			id := fmt.Sprintf("p%d", len(rs)/2)
			rs = append(rs, Rating{id, "A", a}, Rating{id, "B", b})
		}
	}
	add(20, "yes", "yes")
	add(5, "yes", "no")
	add(10, "no", "yes")
	add(15, "no", "no")
	const tol = 1e-12

	got := ComputeAgreement(rs)

	if len(got.Pairs) != 1 {
		t.Fatalf("pairs = %+v, want one", got.Pairs)
	}
	p := got.Pairs[0]
	if p.UserA != "A" || p.UserB != "B" || p.Traces != 50 {
		t.Errorf("pair = %s/%s over %d, want A/B over 50", p.UserA, p.UserB, p.Traces)
	}
	if !near(p.Observed, ptr(0.7), tol) {
		t.Errorf("observed = %s, want 0.7", show(p.Observed))
	}
	if !near(p.Kappa, ptr(0.4), tol) {
		t.Errorf("Cohen's kappa = %s, want 0.4", show(p.Kappa))
	}
	if !near(got.FleissKappa, ptr(13.0/33), tol) {
		t.Errorf("FleissKappa = %s, want Scott's π 13/33", show(got.FleissKappa))
	}
	if !near(got.KrippendorffAlpha, ptr(0.4), tol) {
		t.Errorf("KrippendorffAlpha = %s, want 0.4", show(got.KrippendorffAlpha))
	}
}

func TestAgreementKrippendorffNominalMissingData(t *testing.T) {
	// Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability",
	// section C, nominal data, any number of observers, missing data:
	// 4 observers, 12 units, unit 12 has a single value and is not
	// pairable; α = 0.743 to 3 decimals.
	observers := []string{"A", "B", "C", "D"}
	matrix := [][]string{
		{"1", "2", "3", "3", "2", "1", "4", "1", "2", "", "", ""},
		{"1", "2", "3", "3", "2", "2", "4", "1", "2", "5", "", "3"},
		{"", "3", "3", "3", "2", "3", "4", "2", "2", "5", "1", ""},
		{"1", "2", "3", "3", "2", "4", "4", "1", "2", "5", "1", ""},
	}

	got := ComputeAgreement(fromMatrix(observers, matrix))

	if !near(got.KrippendorffAlpha, ptr(0.743), 0.0005) {
		t.Errorf("KrippendorffAlpha = %s, want 0.743", show(got.KrippendorffAlpha))
	}
	if got.AlphaTraces != 11 {
		t.Errorf("AlphaTraces = %d, want 11", got.AlphaTraces)
	}
	if len(got.Traces) != 12 || got.Traces[11].Reviewers != 1 || got.Traces[11].Agreement != nil {
		t.Errorf("unit 12 should be listed with 1 reviewer and no agreement: %+v", got.Traces)
	}
}

// classicFleiss is Fleiss (1971)'s formula for a constant number of raters,
// from the count matrix.
func classicFleiss(counts [][]int) (float64, bool) {
	var n, N int
	for _, c := range counts[0] {
		n += c
	}
	N = len(counts)
	total := make([]float64, len(counts[0]))
	var pBar float64
	for _, row := range counts {
		var sq int
		for j, c := range row {
			sq += c * c
			total[j] += float64(c)
		}
		pBar += float64(sq-n) / float64(n*(n-1))
	}
	pBar /= float64(N)
	var pe float64
	for _, c := range total {
		p := c / float64(N*n)
		pe += p * p
	}
	if pe == 1 {
		return 0, false
	}
	return (pBar - pe) / (1 - pe), true
}

func TestAgreementFleissVaryingEqualsClassic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1971, 2011))
	for trial := range 500 {
		raters := 2 + rng.IntN(9)
		categories := 2 + rng.IntN(4)
		counts := make([][]int, 1+rng.IntN(40))
		var rs []Rating
		for i := range counts {
			counts[i] = make([]int, categories)
			pool := rng.Perm(3 * raters)
			for r := range raters {
				j := rng.IntN(categories)
				counts[i][j]++
				rs = append(rs, Rating{TraceID: fmt.Sprintf("s%d", i), UserID: fmt.Sprintf("u%d", pool[r]), Label: fmt.Sprintf("c%d", j)})
			}
		}
		rng.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })

		got := ComputeAgreement(rs)
		want, defined := classicFleiss(counts)

		if !defined {
			if got.FleissKappa != nil {
				t.Fatalf("trial %d: FleissKappa = %s, want nil for one category", trial, show(got.FleissKappa))
			}
			continue
		}
		if !near(got.FleissKappa, &want, 1e-9) || got.FleissTraces != len(counts) {
			t.Fatalf("trial %d (%d subjects × %d raters): FleissKappa = %s over %d, classic %.9f over %d",
				trial, len(counts), raters, show(got.FleissKappa), got.FleissTraces, want, len(counts))
		}
	}
}

func TestComputeAgreementCases(t *testing.T) {
	r := func(trace, user, label string) Rating { return Rating{trace, user, label} }
	third := 1.0 / 3
	tests := []struct {
		name    string
		ratings []Rating
		want    Agreement
	}{
		{
			name: "no ratings",
			want: Agreement{Traces: []TraceAgreement{}, Pairs: []PairAgreement{}},
		},
		{
			name:    "single rater",
			ratings: []Rating{r("t1", "amy", "good"), r("t2", "amy", "bad")},
			want: Agreement{
				Traces: []TraceAgreement{
					{TraceID: "t1", Reviewers: 1, Labels: map[string]int{"good": 1}},
					{TraceID: "t2", Reviewers: 1, Labels: map[string]int{"bad": 1}},
				},
				Pairs: []PairAgreement{},
			},
		},
		{
			name: "perfect agreement",
			ratings: []Rating{
				r("t1", "amy", "good"), r("t1", "bob", "good"),
				r("t2", "amy", "bad"), r("t2", "bob", "bad"),
			},
			want: Agreement{
				Traces: []TraceAgreement{
					{TraceID: "t1", Reviewers: 2, Labels: map[string]int{"good": 2}, Agreement: ptr(1)},
					{TraceID: "t2", Reviewers: 2, Labels: map[string]int{"bad": 2}, Agreement: ptr(1)},
				},
				Pairs:       []PairAgreement{{UserA: "amy", UserB: "bob", Traces: 2, Observed: ptr(1), Kappa: ptr(1)}},
				FleissKappa: ptr(1), FleissTraces: 2,
				KrippendorffAlpha: ptr(1), AlphaTraces: 2,
			},
		},
		{
			name: "all the same label",
			ratings: []Rating{
				r("t1", "amy", "good"), r("t1", "bob", "good"),
				r("t2", "amy", "good"), r("t2", "bob", "good"),
			},
			want: Agreement{
				Traces: []TraceAgreement{
					{TraceID: "t1", Reviewers: 2, Labels: map[string]int{"good": 2}, Agreement: ptr(1)},
					{TraceID: "t2", Reviewers: 2, Labels: map[string]int{"good": 2}, Agreement: ptr(1)},
				},
				Pairs:        []PairAgreement{{UserA: "amy", UserB: "bob", Traces: 2, Observed: ptr(1)}},
				FleissTraces: 2, AlphaTraces: 2,
			},
		},
		{
			// P̄ = 1/3, p = (2/3, 1/3), P̄e = 5/9, κ = (1/3 − 5/9)/(4/9) = −1/2;
			// o_good,good = 2·1/2 = 1, α = 1 − 2·(3−1)/(9−5) = 0.
			name:    "one trace, one dissent, users out of order",
			ratings: []Rating{r("t1", "zed", "bad"), r("t1", "kim", "good"), r("t1", "amy", "good")},
			want: Agreement{
				Traces: []TraceAgreement{{TraceID: "t1", Reviewers: 3, Labels: map[string]int{"good": 2, "bad": 1}, Agreement: &third}},
				Pairs: []PairAgreement{
					{UserA: "amy", UserB: "kim", Traces: 1, Observed: ptr(1)},
					{UserA: "amy", UserB: "zed", Traces: 1, Observed: ptr(0), Kappa: ptr(0)},
					{UserA: "kim", UserB: "zed", Traces: 1, Observed: ptr(0), Kappa: ptr(0)},
				},
				FleissKappa: ptr(-0.5), FleissTraces: 1,
				KrippendorffAlpha: ptr(0), AlphaTraces: 1,
			},
		},
		{
			// P̄ = (1/3 + 1)/2, p = (4/5, 1/5), P̄e = 17/25,
			// κ = (2/3 − 17/25)/(8/25) = −1/24; Σ o_cc = 2/2 + 2/1 = 3,
			// α = 1 − 4·(5−3)/(25−17) = 0. t3 has one rater and is left out.
			name: "varying raters",
			ratings: []Rating{
				r("t1", "amy", "good"), r("t1", "bob", "good"), r("t1", "cat", "bad"),
				r("t2", "amy", "good"), r("t2", "bob", "good"),
				r("t3", "cat", "bad"),
			},
			want: Agreement{
				Traces: []TraceAgreement{
					{TraceID: "t1", Reviewers: 3, Labels: map[string]int{"good": 2, "bad": 1}, Agreement: &third},
					{TraceID: "t2", Reviewers: 2, Labels: map[string]int{"good": 2}, Agreement: ptr(1)},
					{TraceID: "t3", Reviewers: 1, Labels: map[string]int{"bad": 1}},
				},
				Pairs: []PairAgreement{
					{UserA: "amy", UserB: "bob", Traces: 2, Observed: ptr(1)},
					{UserA: "amy", UserB: "cat", Traces: 1, Observed: ptr(0), Kappa: ptr(0)},
					{UserA: "bob", UserB: "cat", Traces: 1, Observed: ptr(0), Kappa: ptr(0)},
				},
				FleissKappa: ptr(-1.0 / 24), FleissTraces: 2,
				KrippendorffAlpha: ptr(0), AlphaTraces: 2,
			},
		},
		{
			name: "a later duplicate replaces an earlier one",
			ratings: []Rating{
				r("t1", "amy", "good"), r("t1", "bob", "bad"),
				r("t2", "amy", "bad"), r("t2", "bob", "bad"),
				r("t1", "amy", "bad"),
				r("t2", "bob", "good"), r("t2", "bob", "good"),
			},
			want: Agreement{
				Traces: []TraceAgreement{
					{TraceID: "t1", Reviewers: 2, Labels: map[string]int{"bad": 2}, Agreement: ptr(1)},
					{TraceID: "t2", Reviewers: 2, Labels: map[string]int{"bad": 1, "good": 1}, Agreement: ptr(0)},
				},
				// amy bad, bad; bob bad, good: p_o = 1/2, p_e = 2·1/4,
				// κ = (1/2 − 1/2)/(1 − 1/2) = 0.
				Pairs: []PairAgreement{{UserA: "amy", UserB: "bob", Traces: 2, Observed: ptr(0.5), Kappa: ptr(0)}},
				// P̄ = 1/2, p = (3/4, 1/4), P̄e = 5/8, κ = (1/2 − 5/8)/(3/8) = −1/3;
				// Σ o_cc = 2, α = 1 − 3·(4−2)/(16−10) = 0.
				FleissKappa: ptr(-1.0 / 3), FleissTraces: 2,
				KrippendorffAlpha: ptr(0), AlphaTraces: 2,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ComputeAgreement(tt.ratings)
			for _, d := range diffAgreement(got, tt.want) {
				t.Error(d)
			}
			if _, err := json.Marshal(got); err != nil {
				t.Errorf("json: %v", err)
			}
		})
	}
}

// diffAgreement lists the differences between got and want, comparing
// figures to 1e-12.
func diffAgreement(got, want Agreement) []string {
	const tol = 1e-12
	var d []string
	if (got.Traces == nil) != (want.Traces == nil) || (got.Pairs == nil) != (want.Pairs == nil) {
		d = append(d, fmt.Sprintf("nil slices: traces %v pairs %v, want %v %v", got.Traces == nil, got.Pairs == nil, want.Traces == nil, want.Pairs == nil))
	}
	if len(got.Traces) != len(want.Traces) {
		d = append(d, fmt.Sprintf("traces = %+v, want %+v", got.Traces, want.Traces))
	} else {
		for i, w := range want.Traces {
			g := got.Traces[i]
			if g.TraceID != w.TraceID || g.Reviewers != w.Reviewers || !maps.Equal(g.Labels, w.Labels) || !near(g.Agreement, w.Agreement, tol) {
				d = append(d, fmt.Sprintf("trace %d = %s %d %v %s, want %s %d %v %s", i,
					g.TraceID, g.Reviewers, g.Labels, show(g.Agreement), w.TraceID, w.Reviewers, w.Labels, show(w.Agreement)))
			}
		}
	}
	if len(got.Pairs) != len(want.Pairs) {
		d = append(d, fmt.Sprintf("%d pairs, want %d", len(got.Pairs), len(want.Pairs)))
	} else {
		for i, w := range want.Pairs {
			g := got.Pairs[i]
			if g.UserA != w.UserA || g.UserB != w.UserB || g.Traces != w.Traces || !near(g.Observed, w.Observed, tol) || !near(g.Kappa, w.Kappa, tol) {
				d = append(d, fmt.Sprintf("pair %d = %s/%s %d %s %s, want %s/%s %d %s %s", i,
					g.UserA, g.UserB, g.Traces, show(g.Observed), show(g.Kappa), w.UserA, w.UserB, w.Traces, show(w.Observed), show(w.Kappa)))
			}
		}
	}
	if !near(got.FleissKappa, want.FleissKappa, tol) || got.FleissTraces != want.FleissTraces {
		d = append(d, fmt.Sprintf("Fleiss = %s over %d, want %s over %d", show(got.FleissKappa), got.FleissTraces, show(want.FleissKappa), want.FleissTraces))
	}
	if !near(got.KrippendorffAlpha, want.KrippendorffAlpha, tol) || got.AlphaTraces != want.AlphaTraces {
		d = append(d, fmt.Sprintf("alpha = %s over %d, want %s over %d", show(got.KrippendorffAlpha), got.AlphaTraces, show(want.KrippendorffAlpha), want.AlphaTraces))
	}
	return d
}

// benchmarkRatings is a workshop of traces × users ratings in shuffled
// order, each user agreeing with a trace's majority label 80% of the time.
func benchmarkRatings(traces, users int) []Rating {
	rng := rand.New(rand.NewPCG(10000, 20))
	traceIDs := make([]string, traces)
	for i := range traceIDs {
		traceIDs[i] = fmt.Sprintf("trace-%06d", i)
	}
	rs := make([]Rating, 0, traces*users)
	for u := range users {
		user := fmt.Sprintf("user-%02d", u)
		for i, id := range traceIDs {
			good := i%3 != 0
			if rng.IntN(5) == 0 {
				good = !good
			}
			label := LabelBad
			if good {
				label = LabelGood
			}
			rs = append(rs, Rating{TraceID: id, UserID: user, Label: label})
		}
	}
	rng.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
	return rs
}

func BenchmarkComputeAgreement10kx20(b *testing.B) {
	rs := benchmarkRatings(10_000, 20)
	b.ReportAllocs()
	var a Agreement
	for b.Loop() {
		a = ComputeAgreement(rs)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
	if len(a.Traces) != 10_000 || len(a.Pairs) != 190 || a.FleissKappa == nil {
		b.Fatalf("unexpected result: %d traces, %d pairs, kappa %s", len(a.Traces), len(a.Pairs), show(a.FleissKappa))
	}
}
