/** Small helpers shared by the reliability scripts. */

/** A non-negative integer from the environment (underscores allowed: `1_000_000`), at least `min`. */
export function intEnv(name, fallback, min = 0) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw.replaceAll("_", ""));
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}`);
  return value;
}

/** Bytes as megabytes with two decimals. */
export const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

/** `count` per second over `seconds`, rounded. */
export const ratePerSecond = (count, seconds) => `${Math.round(count / seconds).toLocaleString("en-US")}/s`;
