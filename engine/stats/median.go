package stats

import (
	"math"
	"slices"
)

// MedianInterval is the median of values (Quantile's) with a
// distribution-free interval at Confidence: the order statistics
// x(k) and x(n+1−k) of the sorted values, k the largest for which the
// number of values below the true median, Binomial(n, ½), falls in
// [k, n−k] with probability Confidence or more. It assumes nothing of the
// values' shape and takes values of any sign: a part of a spawn (the
// scheduler's, say) may be zero, and a difference of two clocks' readings
// may be negative, which the log-scale estimators cannot take. Low and
// high are NaN below MinIntervalProcesses values or where no pair of
// order statistics reaches Confidence (fewer than six values do not);
// all three are NaN for no values. values are not modified.
func MedianInterval(values []float64) (median, low, high float64) {
	n := len(values)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	median = SortedQuantile(sorted, 0.5)
	k := medianRank(n, Confidence)
	if n < MinIntervalProcesses || k == 0 {
		return median, math.NaN(), math.NaN()
	}
	return median, sorted[k-1], sorted[n-k]
}

// medianRank is the largest k ≥ 1 whose order statistics x(k), x(n+1−k)
// cover the median with probability confidence or more: 1 − 2·P(B ≤ k−1)
// for B ~ Binomial(n, ½); 0 when even k = 1 does not.
func medianRank(n int, confidence float64) int {
	alpha := (1 - confidence) / 2
	best, tail := 0, 0.0
	for k := 1; k <= n/2; k++ {
		tail += binomialHalf(n, k-1) // P(B ≤ k−1)
		if tail > alpha+1e-12 {
			break
		}
		best = k
	}
	return best
}

// binomialHalf is P(B = i) for B ~ Binomial(n, ½), in logs so that a
// large n does not underflow 2⁻ⁿ.
func binomialHalf(n, i int) float64 {
	ln, _ := math.Lgamma(float64(n + 1))
	li, _ := math.Lgamma(float64(i + 1))
	lr, _ := math.Lgamma(float64(n - i + 1))
	return math.Exp(ln - li - lr - float64(n)*math.Ln2)
}
