import { spawn } from "node:child_process";

const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * The URL as it may be shown as a link or opened: https, or http to a loopback host; no userinfo. Anything
 * else (`javascript:`, `file:`, a shell-looking string, plain http elsewhere) is undefined.
 *
 * @example
 * browsableUrl("https://auth.example.com/authorize?x=1"); // "https://auth.example.com/authorize?x=1"
 * browsableUrl("javascript:alert(1)"); // undefined
 */
export function browsableUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.username !== "" || url.password !== "") return undefined;
  if (url.protocol === "https:" && url.hostname !== "") return url.href;
  if (url.protocol === "http:" && LOOPBACK.has(url.hostname)) return url.href;
  return undefined;
}

/** The program and argv that open `url` in the user's browser on this platform: never a shell. */
export function openerArgv(url: string, platform: NodeJS.Platform = process.platform): [string, string[]] {
  if (platform === "darwin") return ["open", [url]];
  if (platform === "win32") return ["rundll32", ["url.dll,FileProtocolHandler", url]];
  return ["xdg-open", [url]];
}

/**
 * Opens a checked URL ({@link browsableUrl}) in the browser with an argv (no shell, so no quoting to escape);
 * false when the URL is refused. A missing opener is ignored: the URL is printed anyway.
 */
export function openInBrowser(text: string): boolean {
  const url = browsableUrl(text);
  if (url === undefined) return false;
  const [program, argv] = openerArgv(url);
  try {
    const child = spawn(program, argv, { stdio: "ignore", detached: true, shell: false });
    child.on("error", () => {});
    child.unref();
  } catch {
    // no opener on this machine: the URL was printed
  }
  return true;
}
