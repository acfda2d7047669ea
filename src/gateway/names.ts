/** The spec's tool name: 1 to 128 of A-Z a-z 0-9 _ - . */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * How the gateway names what its upstreams serve: `<upstream><separator><name>` for tools and prompts, and
 * `<scheme>://<upstream>/<uri>` for resource URIs and templates, mapped back on the way in. Upstream names never
 * hold the separator (the config refuses it), so a name splits at the first separator without ambiguity.
 */
export class Namespace {
  private readonly uriPrefix: string;

  constructor(
    readonly separator: string,
    scheme: string,
  ) {
    this.uriPrefix = `${scheme}://`;
  }

  /** The downstream name of an upstream's tool or prompt; `undefined` when it would not be a valid tool name. */
  name(upstream: string, item: string): string | undefined {
    const name = `${upstream}${this.separator}${item}`;
    return TOOL_NAME.test(name) ? name : undefined;
  }

  /** The upstream and its own name of a downstream name, or `undefined` when it names no upstream. */
  splitName(name: string): { upstream: string; item: string } | undefined {
    const at = name.indexOf(this.separator);
    if (at <= 0) return undefined;
    return { upstream: name.slice(0, at), item: name.slice(at + this.separator.length) };
  }

  /** The downstream URI (or URI template) of an upstream's URI. */
  uri(upstream: string, uri: string): string {
    return `${this.uriPrefix}${upstream}/${uri}`;
  }

  /** The upstream and its own URI of a downstream URI, or `undefined` when it names no upstream. */
  splitUri(uri: string): { upstream: string; uri: string } | undefined {
    if (!uri.startsWith(this.uriPrefix)) return undefined;
    const rest = uri.slice(this.uriPrefix.length);
    const at = rest.indexOf("/");
    if (at <= 0) return undefined;
    return { upstream: rest.slice(0, at), uri: rest.slice(at + 1) };
  }
}
