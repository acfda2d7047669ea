import { json } from "./dom.js";

type Schema = { [key: string]: unknown };

/** One option of a select: the value sent, and what the user reads. */
export interface Choice {
  value: unknown;
  label: string;
}

/**
 * The fixed choices a schema allows: `enum` (labelled by the legacy `enumNames` when given), or `oneOf` /
 * `anyOf` of `{ const, title }` (titled enums, as elicitation schemas write them). Undefined for a free value.
 */
export function choicesOf(schema: unknown): Choice[] | undefined {
  if (typeof schema !== "object" || schema === null) return undefined;
  const s = schema as Schema;
  const show = (v: unknown) => (typeof v === "string" ? v : json(v));
  if (Array.isArray(s.enum)) {
    const names = Array.isArray(s.enumNames) ? (s.enumNames as unknown[]) : [];
    return s.enum.map((value, i) => {
      const name = names[i];
      return { value, label: typeof name === "string" ? `${name} (${show(value)})` : show(value) };
    });
  }
  const alternatives = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined;
  if (alternatives === undefined || alternatives.length === 0) return undefined;
  const consts = alternatives.filter((a): a is Schema => typeof a === "object" && a !== null && "const" in a);
  if (consts.length !== alternatives.length) return undefined;
  return consts.map((a) => ({
    value: a.const,
    label: typeof a.title === "string" ? `${a.title} (${show(a.const)})` : show(a.const),
  }));
}
