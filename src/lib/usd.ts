/**
 * Two dollar amounts added, to the nano-dollar: sums of binary floats drift
 * (0.01 + 0.001756 = 0.011755999999999999), and every stored total is shown to people.
 */
export function addUsd(a: number, b: number): number {
  return Math.round((a + b) * 1e9) / 1e9;
}

/** A cost for people: `~` marks one that is (partly) an estimate from tokens. */
export function formatCost(usd: number, estimated: boolean | undefined): string {
  return `${estimated === true ? '~' : ''}$${usd.toFixed(4)}`;
}
