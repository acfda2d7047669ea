/**
 * A matcher for RFC 6570 level-1 URI templates (`test://items/{id}/data`): each `{name}` matches one or more
 * characters other than `/`, an earlier variable taking as many as it can. Enough to route `resources/read` to a
 * template; expansion is the client's business. Matching takes time linear in the URI's length, whatever the URI:
 * no regular expression backtracks over it (`{a}{b}{c}` against a long URI that does not match would).
 */
export class UriTemplate {
  readonly variables: readonly string[];
  /**
   * The template cut at each literal `/`. A variable never spans a `/`, so a URI matches when it has as many
   * `/`-separated parts and each part matches its segment.
   */
  private readonly segments: readonly Segment[];

  constructor(readonly template: string) {
    const variables: string[] = [];
    const segments: Segment[] = [{ literals: [""], names: [] }];
    const addLiteral = (text: string) => {
      const [first = "", ...rest] = text.split("/");
      const current = segments.at(-1) as Segment;
      current.literals[current.literals.length - 1] += first;
      for (const part of rest) segments.push({ literals: [part], names: [] });
    };
    let rest = template;
    for (;;) {
      const open = rest.indexOf("{");
      if (open < 0) break;
      const close = rest.indexOf("}", open);
      if (close < 0) throw new Error(`unclosed "{" in URI template ${template}`);
      const name = rest.slice(open + 1, close);
      if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`unsupported variable "{${name}}" in ${template}`);
      if (variables.includes(name)) throw new Error(`variable "${name}" repeats in ${template}`);
      variables.push(name);
      addLiteral(rest.slice(0, open));
      const current = segments.at(-1) as Segment;
      current.names.push(name);
      current.literals.push("");
      rest = rest.slice(close + 1);
    }
    addLiteral(rest);
    this.variables = variables;
    this.segments = segments;
  }

  /** The variables of `uri` (percent-decoded), or `undefined` when it does not match. */
  match(uri: string): { [name: string]: string } | undefined {
    const parts = uri.split("/", this.segments.length + 1);
    if (parts.length !== this.segments.length) return undefined;
    const out: { [name: string]: string } = {};
    for (let i = 0; i < parts.length; i++) {
      const segment = this.segments[i] as Segment;
      const values = matchSegment(parts[i] as string, segment.literals);
      if (values === undefined) return undefined;
      segment.names.forEach((name, index) => {
        const raw = values[index] ?? "";
        try {
          out[name] = decodeURIComponent(raw);
        } catch {
          out[name] = raw;
        }
      });
    }
    return out;
  }
}

/** Part of a template between two `/`: `literals[0] {names[0]} literals[1] … {names[k-1]} literals[k]`. */
interface Segment {
  readonly literals: string[];
  readonly names: string[];
}

/**
 * The values of a segment's variables in `text` (which holds no `/`), each non-empty and each as long as the
 * rest allows, or `undefined`. `ends[j]` is the last place variable j can end with the variables after it still
 * matching; found from the last variable back, with one `lastIndexOf` each, so no split is ever retried.
 */
function matchSegment(text: string, literals: readonly string[]): string[] | undefined {
  const k = literals.length - 1;
  const head = literals[0] as string;
  const tail = literals[k] as string;
  if (k === 0) return text === head ? [] : undefined;
  if (text.length < head.length + tail.length + k || !text.startsWith(head) || !text.endsWith(tail)) {
    return undefined;
  }
  const ends: number[] = new Array(k);
  ends[k - 1] = text.length - tail.length;
  for (let j = k - 2; j >= 0; j--) {
    const literal = literals[j + 1] as string;
    // Variable j + 1 needs one character at least, after the literal that follows variable j.
    const latest = (ends[j + 1] as number) - literal.length - 1;
    if (latest < 0) return undefined;
    const end = text.lastIndexOf(literal, latest);
    if (end < 0) return undefined;
    ends[j] = end;
  }
  const values: string[] = [];
  let start = head.length;
  for (let j = 0; j < k; j++) {
    const end = ends[j] as number;
    if (end <= start) return undefined;
    values.push(text.slice(start, end));
    start = end + (literals[j + 1] as string).length;
  }
  return values;
}
