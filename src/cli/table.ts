/**
 * Lays out rows as a plain-text table: a header row, columns padded to their widest cell, two spaces apart.
 * When `width` is given, the last column is cut (with an ellipsis) so that no line is wider.
 *
 * @example
 * table(["NAME", "DESCRIPTION"], [["add", "Adds two numbers"]]);
 * // "NAME  DESCRIPTION\nadd   Adds two numbers\n"
 */
export function table(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  width?: number,
): string {
  const cells = [headers, ...rows].map((row) => row.map(oneLine));
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => length(row[column] ?? ""))));
  const lines = cells.map((row) => {
    const line = row
      .map((cell, column) => (column === row.length - 1 ? cell : pad(cell, widths[column] ?? 0)))
      .join("  ")
      .trimEnd();
    return width !== undefined && length(line) > width ? `${cut(line, Math.max(width - 1, 1))}…` : line;
  });
  return `${lines.join("\n")}\n`;
}

/** Key-value lines: keys padded to the widest one. */
export function fields(pairs: readonly (readonly [string, string])[]): string {
  const width = Math.max(0, ...pairs.map(([key]) => key.length));
  return pairs
    .map(([key, value]) => `${pad(key, width)}  ${value}`.trimEnd())
    .join("\n")
    .concat("\n");
}

/** The first line of a text with control characters (terminal escapes included) made visible. */
export function oneLine(text: string): string {
  const first = text.split(/\r?\n/, 1)[0] ?? "";
  return safe(first.trim());
}

/** C0 and C1 control characters other than tab and newline. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Replaces control characters, so that a server's text cannot move the cursor or recolour the terminal. */
export function safe(text: string): string {
  return text
    .replace(/\r\n/g, "\n")
    .replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function length(text: string): number {
  return [...text].length;
}

function pad(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - length(text)));
}

function cut(text: string, width: number): string {
  return [...text].slice(0, width).join("");
}
