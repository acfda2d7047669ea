import type { Writable } from "node:stream";
import type {
  ElicitFormParams,
  ElicitResult,
  ElicitValue,
  PrimitiveSchema,
} from "../protocol/types/index.js";
import type { LineReader } from "./line-reader.js";
import { oneLine, safe } from "./table.js";

/** Where a form is asked: answers from `reader` (the user's terminal in the CLI), questions on `output`. */
export interface FormStreams {
  reader: LineReader;
  output: Writable;
  signal?: AbortSignal;
}

interface Choice {
  value: string;
  label: string;
}

/**
 * Asks the user to fill in a form-mode elicitation, one field per line, and returns the answer: `accept`
 * with the values given (empty optional fields are left out, so the schema's defaults apply), `decline` when
 * the user answers "n" at the end, `cancel` at the end of input (Ctrl-D).
 *
 * @example
 * const reader = new LineReader(process.stdin, process.stderr);
 * const answer = await askForm(params, { reader, output: process.stderr, signal });
 */
export async function askForm(params: ElicitFormParams, streams: FormStreams): Promise<ElicitResult> {
  const { reader, output, signal } = streams;
  output.write(`\nThe server asks: ${safe(params.message)}\n`);
  const schema = params.requestedSchema;
  const required = new Set(schema.required ?? []);
  const content: { [name: string]: ElicitValue } = {};
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    const value = await askField(reader, name, field, required.has(name), output, signal);
    if (value === null) return { action: "cancel" };
    if (value !== undefined) content[name] = value;
  }
  for (;;) {
    const answer = await reader.ask("Send these answers? [Y/n] ", signal);
    if (answer === null) return { action: "cancel" };
    const word = answer.trim().toLowerCase();
    if (word === "" || word === "y" || word === "yes") return { action: "accept", content };
    if (word === "n" || word === "no") return { action: "decline" };
  }
}

/** Asks one field until the answer is valid: the value, `undefined` to leave it out, `null` at end of input. */
async function askField(
  reader: LineReader,
  name: string,
  field: PrimitiveSchema,
  required: boolean,
  output: Writable,
  signal: AbortSignal | undefined,
): Promise<ElicitValue | undefined | null> {
  const choices = choicesOf(field);
  if (choices !== undefined) {
    output.write(
      choices
        .map((c, i) => `    ${i + 1}. ${c.label}`)
        .join("\n")
        .concat("\n"),
    );
  }
  const label = oneLine(field.title ?? name);
  const hint = hintOf(field, choices, required);
  for (;;) {
    const answer = await reader.ask(`  ${label}${hint}: `, signal);
    if (answer === null) return null;
    const text = answer.trim();
    if (text === "") {
      if (!required || field.default !== undefined) return undefined;
      output.write("    this field is required\n");
      continue;
    }
    const parsed = parseField(text, field, choices);
    if (typeof parsed === "object" && parsed !== null && "problem" in parsed) {
      output.write(`    ${parsed.problem}\n`);
      continue;
    }
    return parsed;
  }
}

function hintOf(field: PrimitiveSchema, choices: Choice[] | undefined, required: boolean): string {
  const kind =
    field.type === "boolean"
      ? "yes/no"
      : choices !== undefined
        ? field.type === "array"
          ? "numbers or values, comma-separated"
          : "number or value"
        : field.type;
  const extra = [kind, required ? "required" : "optional"];
  const description = field.description === undefined ? "" : ` - ${oneLine(field.description)}`;
  const fallback = field.default === undefined ? "" : ` [${safe(shown(field.default))}]`;
  return ` (${extra.join(", ")})${description}${fallback}`;
}

/** A default as the user would type it: `Monica`, `Guitar, Piano`, `42`. */
function shown(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join(", ") : String(value);
}

function choicesOf(field: PrimitiveSchema): Choice[] | undefined {
  const source = field.type === "array" ? (field.items as PrimitiveSchema | undefined) : field;
  if (source === undefined) return undefined;
  if (Array.isArray(source.enum)) {
    const names = Array.isArray(source.enumNames) ? (source.enumNames as string[]) : [];
    return source.enum.map((value, i) => ({ value: String(value), label: safe(names[i] ?? String(value)) }));
  }
  const options = (source.oneOf ?? source.anyOf) as { const?: unknown; title?: string }[] | undefined;
  if (!Array.isArray(options)) return undefined;
  return options
    .filter((option) => typeof option?.const === "string")
    .map((option) => ({ value: String(option.const), label: safe(option.title ?? String(option.const)) }));
}

function pick(text: string, choices: Choice[]): string | undefined {
  const index = /^\d+$/.test(text) ? Number(text) - 1 : -1;
  return choices[index]?.value ?? choices.find((c) => c.value === text)?.value;
}

function parseField(
  text: string,
  field: PrimitiveSchema,
  choices: Choice[] | undefined,
): ElicitValue | { problem: string } {
  if (choices !== undefined && field.type === "array") {
    const picked = text.split(",").map((part) => pick(part.trim(), choices));
    if (picked.some((value) => value === undefined)) return { problem: "pick from the list" };
    const values = picked as string[];
    const min = typeof field.minItems === "number" ? field.minItems : 0;
    const max = typeof field.maxItems === "number" ? field.maxItems : Number.POSITIVE_INFINITY;
    if (values.length < min || values.length > max) return { problem: `pick ${min} to ${max}` };
    return values;
  }
  if (choices !== undefined) return pick(text, choices) ?? { problem: "pick from the list" };
  switch (field.type) {
    case "boolean": {
      const word = text.toLowerCase();
      if (["y", "yes", "true"].includes(word)) return true;
      if (["n", "no", "false"].includes(word)) return false;
      return { problem: "answer yes or no" };
    }
    case "number":
    case "integer": {
      const value = Number(text);
      if (!Number.isFinite(value) || (field.type === "integer" && !Number.isInteger(value))) {
        return { problem: `enter ${field.type === "integer" ? "a whole number" : "a number"}` };
      }
      if (typeof field.minimum === "number" && value < field.minimum)
        return { problem: `at least ${field.minimum}` };
      if (typeof field.maximum === "number" && value > field.maximum)
        return { problem: `at most ${field.maximum}` };
      return value;
    }
    default: {
      if (typeof field.minLength === "number" && text.length < field.minLength) {
        return { problem: `at least ${field.minLength} characters` };
      }
      if (typeof field.maxLength === "number" && text.length > field.maxLength) {
        return { problem: `at most ${field.maxLength} characters` };
      }
      return text;
    }
  }
}
