/** One challenge of a `WWW-Authenticate` header. */
export interface AuthChallengeParams {
  /** The auth scheme, lowercase (`bearer`, `dpop`, `basic`, `negotiate`, ...). */
  readonly scheme: string;
  /** The auth-params, names lowercase, quoted-string values unescaped. */
  readonly params: { readonly [name: string]: string };
  /** The token68 form (`Negotiate abc==`), when the challenge has one instead of params. */
  readonly token68?: string;
}

const TOKEN = /[!#$%&'*+.^_`|~0-9A-Za-z-]+/y;
const TOKEN68 = /[A-Za-z0-9\-._~+/]+=*/y;
/** Parameters or challenges beyond this are ignored: a header is attacker-controlled input. */
const MAX_CHALLENGES = 16;
const MAX_PARAMS = 32;

/**
 * Parses a `WWW-Authenticate` header value (RFC 9110 §11.6.1): several challenges, each with auth-params
 * (token or quoted-string values, `\`-escapes undone, names case-insensitive) or a token68. Never throws: it
 * stops at the first malformed part and returns the challenges completed before it.
 *
 * @example
 * parseWwwAuthenticate('Negotiate, Bearer error="invalid_token", resource_metadata="https://x/.well-known/p"')
 * // [{ scheme: "negotiate", params: {} }, { scheme: "bearer", params: { error: "invalid_token", ... } }]
 */
export function parseWwwAuthenticate(header: string | undefined): AuthChallengeParams[] {
  if (header === undefined) return [];
  const out: AuthChallengeParams[] = [];
  const reader = new Reader(header);
  while (out.length < MAX_CHALLENGES) {
    reader.skip(" \t,");
    if (reader.done) break;
    const scheme = reader.match(TOKEN);
    if (scheme === undefined) break;
    reader.skip(" \t");
    const token68 = reader.token68();
    if (token68 !== undefined) {
      out.push({ scheme: scheme.toLowerCase(), params: {}, token68 });
      continue;
    }
    const params = reader.params();
    if (params === undefined) break;
    out.push({ scheme: scheme.toLowerCase(), params });
  }
  return out;
}

/** The first challenge of `scheme` (case-insensitive), if any. */
export function challengeOf(
  challenges: readonly AuthChallengeParams[],
  scheme: string,
): AuthChallengeParams | undefined {
  const wanted = scheme.toLowerCase();
  return challenges.find((challenge) => challenge.scheme === wanted);
}

class Reader {
  private i = 0;

  constructor(private readonly text: string) {}

  get done(): boolean {
    return this.i >= this.text.length;
  }

  skip(chars: string): void {
    while (this.i < this.text.length && chars.includes(this.text[this.i] as string)) this.i++;
  }

  match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.i;
    const found = pattern.exec(this.text);
    if (found === null) return undefined;
    this.i += found[0].length;
    return found[0];
  }

  /** A token68 followed by the end or a comma; otherwise nothing is consumed. */
  token68(): string | undefined {
    const start = this.i;
    const value = this.match(TOKEN68);
    if (value === undefined) return undefined;
    this.skip(" \t");
    if (this.done || this.text[this.i] === ",") {
      // `realm=x` also starts like a token68 (`realm=`); only a lone one counts.
      if (!/=[^=]/.test(value)) return value;
    }
    this.i = start;
    return undefined;
  }

  /** The auth-params of one challenge; undefined when malformed. Stops before the next challenge's scheme. */
  params(): { [name: string]: string } | undefined {
    const params: { [name: string]: string } = {};
    let count = 0;
    for (;;) {
      const save = this.i;
      this.skip(" \t");
      const name = this.match(TOKEN);
      if (name === undefined) {
        this.i = save;
        return params;
      }
      this.skip(" \t");
      if (this.text[this.i] !== "=") {
        // A token without `=`: the scheme of the next challenge.
        this.i = save;
        return params;
      }
      this.i++;
      this.skip(" \t");
      const value = this.text[this.i] === '"' ? this.quoted() : this.match(TOKEN);
      if (value === undefined) return undefined;
      const key = name.toLowerCase();
      // A repeated parameter is ambiguous (RFC 9110: each name once): the first one stands.
      if (!(key in params) && count < MAX_PARAMS) {
        params[key] = value;
        count++;
      }
      this.skip(" \t");
      if (this.done) return params;
      if (this.text[this.i] !== ",") return undefined;
      this.i++;
    }
  }

  private quoted(): string | undefined {
    this.i++;
    let value = "";
    while (this.i < this.text.length) {
      const ch = this.text[this.i] as string;
      if (ch === "\\") {
        const next = this.text[this.i + 1];
        if (next === undefined) return undefined;
        value += next;
        this.i += 2;
      } else if (ch === '"') {
        this.i++;
        return value;
      } else {
        value += ch;
        this.i++;
      }
    }
    return undefined;
  }
}
