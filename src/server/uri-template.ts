/**
 * A matcher for RFC 6570 level-1 URI templates (`test://items/{id}/data`): each `{name}` matches one or more
 * characters other than `/`. Enough to route `resources/read` to a template; expansion is the client's business.
 */
export class UriTemplate {
  readonly variables: readonly string[];
  private readonly pattern: RegExp;

  constructor(readonly template: string) {
    const variables: string[] = [];
    let source = "^";
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
      source += `${escapeRegExp(rest.slice(0, open))}([^/]+)`;
      rest = rest.slice(close + 1);
    }
    this.pattern = new RegExp(`${source}${escapeRegExp(rest)}$`);
    this.variables = variables;
  }

  /** The variables of `uri` (percent-decoded), or `undefined` when it does not match. */
  match(uri: string): { [name: string]: string } | undefined {
    const found = this.pattern.exec(uri);
    if (!found) return undefined;
    const out: { [name: string]: string } = {};
    this.variables.forEach((name, index) => {
      const raw = found[index + 1] ?? "";
      try {
        out[name] = decodeURIComponent(raw);
      } catch {
        out[name] = raw;
      }
    });
    return out;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
