package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	mstats "github.com/aclements/go-moremath/stats"
)

// TestDensityIsTheLibrarysBitForBit: gaussianDensity, which reads only
// the values near x, returns go-moremath's KDE.PDF to the last bit, on
// samples whose range spans hundreds of bandwidths (so most values are
// left out at most points) and on ones of a few.
func TestDensityIsTheLibrarysBitForBit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// The last sample's values repeat, as whole microseconds do.
	for _, spread := range []float64{0.05, 1, 20, -1} {
		var logs []float64
		for i := range 5000 {
			v := 2.5 + 0.1*rng.NormFloat64()
			if i%7 == 0 {
				v += math.Abs(spread) * rng.ExpFloat64()
			}
			if spread < 0 {
				v = math.Log(math.Round(math.Exp(v)))
			}
			logs = append(logs, v)
		}
		slices.Sort(logs)
		sample := mstats.Sample{Xs: logs, Sorted: true}
		bw := mstats.BandwidthSilverman(sample)
		kde := mstats.KDE{Sample: sample, Kernel: mstats.GaussianKernel, Bandwidth: bw}
		lo, hi := logs[0], logs[len(logs)-1]
		if spread < 0 && len(slices.Compact(slices.Clone(logs))) > 500 {
			t.Fatalf("the rounded sample has %d values of 5000; want them repeated", len(slices.Compact(slices.Clone(logs))))
		}
		if spread == 20 && (hi-lo)/bw < 2*densityReach {
			t.Fatalf("spread %g: the range is only %.0f bandwidths, so no value is left out anywhere", spread, (hi-lo)/bw)
		}
		for i := range 300 {
			x := lo - 3*bw + (hi-lo+6*bw)*float64(i)/299
			want, got := kde.PDF(x), gaussianDensity(logs, bw, x)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("spread %g, x = %v: density %v, want go-moremath's %v", spread, x, got, want)
			}
		}
	}
}
