const BY_EXTENSION: { readonly [extension: string]: string } = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  csv: "text/csv",
  html: "text/html",
  css: "text/css",
  xml: "application/xml",
  js: "text/javascript",
  mjs: "text/javascript",
  ts: "text/typescript",
  py: "text/x-python",
  sh: "application/x-sh",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
};

/** The MIME type a skill file is served with, from its extension; `application/octet-stream` when unknown. */
export function mimeTypeOf(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return "application/octet-stream";
  return BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? "application/octet-stream";
}
