package quality

import (
	"math"
	"testing"
)

func TestMannWhitneyP(t *testing.T) {
	tests := []struct {
		name string
		a, b []float64
		want float64
	}{
		// U = 0, mean 12.5, variance 25*11/12; z = (12.5-0.5)/4.787 = 2.5067;
		// p = 2(1-Φ(2.5067)) = 0.01219.
		{"separated 5 v 5", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 0.012185780355344818},
		// Ranks 1, 3, 3, 5.5 for A (ties of 3 and 2): R = 12.5, U = 2.5,
		// mean 8, variance 16/12 * (9 - 30/56) = 11.2857;
		// z = (5.5-0.5)/3.3594 = 1.4884; p = 0.1367.
		{"ties", []float64{1, 2, 2, 3}, []float64{2, 3, 4, 5}, 0.13665824773814753},
		// U = 0, mean 8, variance 12: z = 7.5/3.4641 = 2.165; p = 0.0304.
		{"separated 4 v 4", []float64{1, 2, 3, 4}, []float64{6, 7, 8, 9}, 0.03038282197657751},
		{"identical", []float64{0.5, 0.6, 0.7, 0.8, 0.9}, []float64{0.5, 0.6, 0.7, 0.8, 0.9}, 1},
		{"all equal", []float64{1, 1, 1}, []float64{1, 1}, 1},
	}
	for _, tc := range tests {
		if got := mannWhitneyP(tc.a, tc.b); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: p = %v, want %v", tc.name, got, tc.want)
		}
		if got := mannWhitneyP(tc.b, tc.a); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s swapped: p = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// series returns n values base + spread*sin(i), deterministic noise.
func series(n int, base, spread float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = base + spread*math.Sin(float64(i)*1.7+0.3)
	}
	return out
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name        string
		a, b        []float64
		significant bool
	}{
		{"separated 30 v 30", series(30, 0.70, 0.08), series(30, 0.86, 0.08), true},
		{"worse 30 v 30", series(30, 0.86, 0.08), series(30, 0.70, 0.08), true},
		{"identical", series(30, 0.8, 0.1), series(30, 0.8, 0.1), false},
		{"noisy 5 v 5", []float64{0.7, 0.9, 0.6, 0.8, 0.75}, []float64{0.8, 0.65, 0.85, 0.7, 0.9}, false},
		{"separated 5 v 5", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, true},
		{"separated but 4 v 4", []float64{1, 2, 3, 4}, []float64{6, 7, 8, 9}, false},
		{"separated but 30 v 3", series(30, 0.5, 0.01), []float64{0.9, 0.91, 0.92}, false},
		{"empty side", nil, []float64{1, 2, 3, 4, 5}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Compare(tc.a, tc.b)
			if c.Significant != tc.significant {
				t.Errorf("significant = %v, want %v: %+v", c.Significant, tc.significant, c)
			}
			if c.NA != len(tc.a) || c.NB != len(tc.b) {
				t.Errorf("n = %d, %d", c.NA, c.NB)
			}
			if math.Abs(c.Diff-(c.MeanB-c.MeanA)) > 1e-12 {
				t.Errorf("diff %v != %v - %v", c.Diff, c.MeanB, c.MeanA)
			}
			if len(tc.a) > 0 && len(tc.b) > 0 && (c.CILow > c.Diff+1e-9 || c.CIHigh < c.Diff-1e-9) {
				t.Errorf("CI [%v, %v] does not contain the observed diff %v", c.CILow, c.CIHigh, c.Diff)
			}
			if c.PValue < 0 || c.PValue > 1 {
				t.Errorf("p = %v", c.PValue)
			}
		})
	}
}

func TestCompareDetails(t *testing.T) {
	c := Compare([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10})
	if c.MeanA != 3 || c.MeanB != 8 || c.Diff != 5 {
		t.Errorf("means %v %v diff %v", c.MeanA, c.MeanB, c.Diff)
	}
	if c.CILow < 2 || c.CIHigh > 8 || c.CILow >= c.CIHigh {
		t.Errorf("CI [%v, %v]", c.CILow, c.CIHigh)
	}
	if math.Abs(c.PValue-0.012185780355344818) > 1e-12 {
		t.Errorf("p = %v", c.PValue)
	}
	if d := Compare([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}); d != c {
		t.Errorf("not deterministic: %+v vs %+v", d, c)
	}
	same := Compare([]float64{0.8, 0.8, 0.8, 0.8, 0.8}, []float64{0.8, 0.8, 0.8, 0.8, 0.8})
	if same.PValue != 1 || same.CILow != 0 || same.CIHigh != 0 || same.Significant {
		t.Errorf("constant samples: %+v", same)
	}
	nan := Compare([]float64{math.NaN(), 1, math.Inf(1)}, []float64{2})
	if nan.NA != 1 || nan.MeanA != 1 {
		t.Errorf("non-finite values kept: %+v", nan)
	}
	empty := Compare(nil, nil)
	if empty.PValue != 1 || empty.Significant || empty.Diff != 0 {
		t.Errorf("empty: %+v", empty)
	}
}
