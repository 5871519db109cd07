package quality

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Parameters of Compare.
const (
	// BootstrapResamples is the number of bootstrap resamples behind the
	// confidence interval.
	BootstrapResamples = 2000
	// MinSamples is the fewest samples per side for which Compare may declare
	// a difference significant.
	MinSamples = 5
	// Alpha is the significance level: 0.05, for a 95% interval.
	Alpha = 0.05
)

// bootstrapSeed makes Compare deterministic.
const bootstrapSeed = 0x686f6e65

// Comparison compares the scores of two prompt versions, A (the baseline) and
// B (the candidate).
type Comparison struct {
	NA, NB       int
	MeanA, MeanB float64
	// Diff is MeanB − MeanA.
	Diff float64
	// CILow and CIHigh bound the 95% percentile bootstrap confidence
	// interval of Diff.
	CILow, CIHigh float64
	// PValue is the two-sided Mann–Whitney U test p-value.
	PValue float64
	// Significant reports whether B differs from A; see Compare.
	Significant bool
}

// Compare compares scores a (baseline) with b (candidate), such as the
// overall quality scores of the turns of two prompt versions. Values that are
// NaN or infinite are dropped.
//
// Two tests are combined:
//
//   - the 95% confidence interval of the difference of means (b − a) is the
//     percentile interval of 2000 bootstrap resamples, each side resampled
//     with replacement, from a fixed seed so that results are reproducible;
//   - the p-value is that of the two-sided Mann–Whitney U test, using the
//     normal approximation with tie correction and continuity correction.
//
// The difference is Significant only when each side has at least 5 samples,
// p < 0.05 and the confidence interval excludes 0. With an empty side the
// means of missing sides are 0, the interval is [0, 0] and the p-value 1.
func Compare(a, b []float64) Comparison {
	a, b = finite(a), finite(b)
	c := Comparison{NA: len(a), NB: len(b), MeanA: mean(a), MeanB: mean(b), PValue: 1}
	c.Diff = c.MeanB - c.MeanA
	if len(a) == 0 || len(b) == 0 {
		return c
	}
	c.CILow, c.CIHigh = bootstrapCI(a, b)
	c.PValue = mannWhitneyP(a, b)
	c.Significant = len(a) >= MinSamples && len(b) >= MinSamples &&
		c.PValue < Alpha && (c.CILow > 0 || c.CIHigh < 0)
	return c
}

// finite returns the finite values of xs.
func finite(xs []float64) []float64 {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out
}

// mean returns the mean of xs, or 0 when xs is empty.
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// bootstrapCI returns the 95% percentile bootstrap interval of
// mean(b) − mean(a).
func bootstrapCI(a, b []float64) (lo, hi float64) {
	rng := rand.New(rand.NewPCG(bootstrapSeed, bootstrapSeed))
	diffs := make([]float64, BootstrapResamples)
	for i := range diffs {
		diffs[i] = resampleMean(rng, b) - resampleMean(rng, a)
	}
	slices.Sort(diffs)
	return quantile(diffs, Alpha/2), quantile(diffs, 1-Alpha/2)
}

// resampleMean returns the mean of len(xs) draws from xs with replacement.
func resampleMean(rng *rand.Rand, xs []float64) float64 {
	var s float64
	for range xs {
		s += xs[rng.IntN(len(xs))]
	}
	return s / float64(len(xs))
}

// quantile returns the p-quantile of sorted xs, interpolating linearly.
func quantile(sorted []float64, p float64) float64 {
	pos := p * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}

// mannWhitneyP returns the two-sided p-value of the Mann–Whitney U test of a
// against b, by the normal approximation with tie and continuity corrections.
func mannWhitneyP(a, b []float64) float64 {
	type obs struct {
		v     float64
		fromA bool
	}
	all := make([]obs, 0, len(a)+len(b))
	for _, v := range a {
		all = append(all, obs{v, true})
	}
	for _, v := range b {
		all = append(all, obs{v, false})
	}
	slices.SortFunc(all, func(x, y obs) int {
		switch {
		case x.v < y.v:
			return -1
		case x.v > y.v:
			return 1
		}
		return 0
	})
	n := float64(len(all))
	var rankSumA, ties float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2
		t := float64(j - i)
		ties += t*t*t - t
		for k := i; k < j; k++ {
			if all[k].fromA {
				rankSumA += rank
			}
		}
		i = j
	}
	na, nb := float64(len(a)), float64(len(b))
	u := rankSumA - na*(na+1)/2
	mu := na * nb / 2
	variance := na * nb / 12 * ((n + 1) - ties/(n*(n-1)))
	if variance <= 0 {
		return 1
	}
	z := max(math.Abs(u-mu)-0.5, 0) / math.Sqrt(variance)
	return min(math.Erfc(z/math.Sqrt2), 1)
}
