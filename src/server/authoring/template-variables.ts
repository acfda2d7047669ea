/**
 * The variables a resource template's callback gets, read from the template's text when it is a literal type:
 * `"repo://{owner}/files{/path*}{?ref}"` gives `{ owner: string; path?: string[]; ref?: string }`. A variable of
 * `{var}` or `{+var}` alone in its expression is always there; every other one may be missing; an exploded one
 * (`*`) is a list. For a template typed only as `string`: `{ [name: string]: string | string[] }`.
 *
 * @example
 * builder.resourceTemplate({ uriTemplate: "notes://{id}{?rev}", name: "note" }, (uri, { id, rev }) => ({
 *   contents: [{ uri, text: `note ${id} at ${rev ?? "latest"}` }],
 * }));
 */
export type TemplateVariables<T extends string> = string extends T
  ? { [name: string]: string | string[] }
  : Flatten<VariablesOf<T>>;

/** @inline */
type Flatten<T> = { [K in keyof T]: T[K] };

/** @inline */
type VariablesOf<T extends string> = T extends `${string}{${infer Expression}}${infer Rest}`
  ? ExpressionVariables<Expression> & VariablesOf<Rest>
  : unknown;

type Operator = "+" | "#" | "." | "/" | ";" | "?" | "&";

type ExpressionVariables<E extends string> = E extends `${infer O extends Operator}${infer List}`
  ? O extends "+"
    ? ListVariables<List, Single<List>>
    : ListVariables<List, false>
  : ListVariables<E, Single<E>>;

/** True when an expression's list has one variable, not exploded. */
type Single<List extends string> = List extends `${string},${string}` | `${string}*` ? false : true;

type ListVariables<List extends string, Required extends boolean> = List extends `${infer Head},${infer Tail}`
  ? Variable<Head, false> & ListVariables<Tail, false>
  : Variable<List, Required>;

type Variable<Spec extends string, Required extends boolean> = Spec extends `${infer Name}*`
  ? { [K in Name]?: string[] }
  : Spec extends `${infer Name}:${string}`
    ? Required extends true
      ? { [K in Name]: string }
      : { [K in Name]?: string }
    : Required extends true
      ? { [K in Spec]: string }
      : { [K in Spec]?: string };
