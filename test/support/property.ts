/**
 * Run settings of the property tests (fast-check). Every property has a fixed seed, so a run is reproducible;
 * two environment variables widen the search without editing a test:
 *
 * - `MCPKIT_PROPERTY_RUNS=10` multiplies every property's `numRuns` by 10 (a fraction such as 0.1 shrinks it);
 * - `MCPKIT_PROPERTY_SEED=12345` mixes a number into every seed, for a different but still reproducible search.
 *
 * A failure prints its seed and counterexample path; replay it with `fc.assert(property, { seed, path })`.
 */
const factor = positiveNumber("MCPKIT_PROPERTY_RUNS", 1);
const seedMix = integer("MCPKIT_PROPERTY_SEED", 0);

/** The `fc.assert` parameters of one property: its fixed seed and its number of runs, as the environment scales them. */
export function runs(seed: number, numRuns: number): { seed: number; numRuns: number } {
  return { seed: (seed ^ seedMix) | 0, numRuns: Math.max(1, Math.round(numRuns * factor)) };
}

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

function integer(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, got "${raw}"`);
  return value;
}
