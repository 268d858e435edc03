/**
 * When a load's warm-up is over, judged from its slices' figures (the watched server's CPU per
 * request, or the rate): the last `STEADY_SLICES` within `STEADY_SPREAD` of their mean, and that
 * mean within `STEADY_SPREAD` of the mean of the slices before them.
 *
 * Why both: a server's JIT and heap take their time. On a 2-core machine the bare JSON server's CPU
 * per request fell from 49 to 28 µs over its first 25 s under load, and a Kiln search's from 395 to
 * 253 µs over 40 s; a fixed 10 s left the first windows measuring the warm-up. Three slices that
 * agree are not enough either: V8 was still compiling Kiln's long tail of functions (855, 472, 89,
 * 75 optimizations in successive 5-s windows of a search with no match), and a figure falling ~3%
 * per slice keeps three slices within 5% of their mean while the measured windows went on falling
 * (a search's CPU per request 1,450 then 1,172 µs, its last window 1.20 of the first's rate). The
 * second condition waits until a fall has stopped.
 */
const STEADY_SLICES = 3
const STEADY_SPREAD = 0.05

const meanOf = (figures: ReadonlyArray<number>): number => figures.reduce((sum, figure) => sum + figure, 0) / figures.length

export const isSteady = (figures: ReadonlyArray<number>): boolean => {
  if (figures.length < 2 * STEADY_SLICES) return false
  const last = figures.slice(-STEADY_SLICES)
  const before = figures.slice(-2 * STEADY_SLICES, -STEADY_SLICES)
  const mean = meanOf(last)
  return mean > 0 &&
    last.every((figure) => Math.abs(figure - mean) <= STEADY_SPREAD * mean) &&
    Math.abs(meanOf(before) - mean) <= STEADY_SPREAD * mean
}
