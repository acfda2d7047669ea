/**
 * Formatting shared by the bench's printed tables and the generated docs (scripts/bench-claims.mjs): numbers with
 * their units, ratios, and the mcpkit-against-the-official-SDKs table built from a run's rows, so that what
 * `npm run bench` prints and what docs/performance.md shows from docs/bench/latest.json are the same text.
 */

export const OFFICIAL = ["v1", "v2"];

/** A measured value in its unit: `/s` (rounded), `ms`, `KB` and `MB` (from bytes), or a bare count. */
export function fmt(value, unit) {
  if (value === undefined || value === null) return "n/a";
  if (unit === "/s") return `${Math.round(value).toLocaleString("en-US")}/s`;
  if (unit === "ms") return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
  if (unit === "KB") return `${(value / 1024).toFixed(1)} KB`;
  if (unit === "MB") return `${(value / 1024 / 1024).toFixed(2)} MB`;
  return String(value);
}

/** `a / b` as `1.23x`; `n/a` when either is missing, `∞` over zero. */
export function ratio(a, b) {
  if (a === undefined || a === null || b === undefined || b === null) return "n/a";
  return b === 0 ? "∞" : `${(a / b).toFixed(2)}x`;
}

/** The best official SDK's value of a row: the highest for throughput, the lowest otherwise. */
export function bestOfficial(row) {
  const officials = OFFICIAL.map((impl) => row.values[impl]).filter((v) => v !== undefined && v !== null);
  if (officials.length === 0) return undefined;
  return row.higher ? Math.max(...officials) : Math.min(...officials);
}

export const OFFICIAL_HEADER = [
  "workload",
  "mcpkit",
  "official v1",
  "official v2",
  "floor",
  "mcpkit / best official",
  "mcpkit / floor",
];

/** The cells of the run's table: one line per row `{ name, unit, higher, values: { mcpkit, v1, v2, floor } }`. */
export function officialCells(rows) {
  return rows.map((row) => {
    const { values } = row;
    const floor = values.floor ?? undefined;
    return [
      row.name,
      fmt(values.mcpkit, row.unit),
      fmt(values.v1, row.unit),
      fmt(values.v2, row.unit),
      fmt(floor, row.unit),
      `${ratio(values.mcpkit, bestOfficial(row))} ${row.higher ? "↑" : "↓"}`,
      floor === undefined ? "" : ratio(values.mcpkit, floor),
    ];
  });
}

/** A Markdown table with padded columns (the form `biome format` and the docs keep). */
export function markdownTable(header, cells) {
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)));
  const line = (row) => `| ${row.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n");
}

export const OTEL_HEADER = [
  "mcpkit/otel setup",
  "calls/s",
  "/ absent",
  "per call",
  "CPU per call",
  "cost per call vs absent (wall, CPU)",
];

const micros = (value) => `${value.toFixed(2)} µs`;
const signed = (value) => `${value < 0 ? "-" : "+"}${micros(Math.abs(value))}`;

/**
 * The cells of the otel table: one line per row `{ name, rate, cpu }` (calls/s, CPU microseconds per call), the
 * first row (tracing absent) the baseline of the ratios and costs.
 */
export function otelCells(rows) {
  const base = rows[0];
  return rows.map((row) => [
    row.name,
    fmt(row.rate, "/s"),
    ratio(row.rate, base.rate),
    micros(1e6 / row.rate),
    micros(row.cpu),
    row === base ? "" : `${signed(1e6 / row.rate - 1e6 / base.rate)}, ${signed(row.cpu - base.cpu)}`,
  ]);
}
