import type { JsonObject, Open } from "./common.js";

/**
 * Extension settings keyed by a namespaced id (`io.modelcontextprotocol/ui`, `com.example/widgets`). `{}` means
 * "supported, no settings".
 */
export type ExtensionMap = { [id: string]: JsonObject };

/** What a client can do. Unknown members are kept. */
export interface ClientCapabilities extends Open {
  experimental?: { [key: string]: JsonObject };
  roots?: { listChanged?: boolean; [key: string]: unknown };
  sampling?: { context?: JsonObject; tools?: JsonObject; [key: string]: unknown };
  elicitation?: { form?: JsonObject; url?: JsonObject; [key: string]: unknown };
  extensions?: ExtensionMap;
}

/** What a server offers. Unknown members are kept. */
export interface ServerCapabilities extends Open {
  experimental?: { [key: string]: JsonObject };
  logging?: JsonObject;
  completions?: JsonObject;
  prompts?: { listChanged?: boolean; [key: string]: unknown };
  resources?: { subscribe?: boolean; listChanged?: boolean; [key: string]: unknown };
  tools?: { listChanged?: boolean; [key: string]: unknown };
  extensions?: ExtensionMap;
}

const EXTENSION_ID = /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?\/[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** True for a valid extension id: a namespace prefix and a name (`com.example/widgets`); a bare name is not. */
export function isExtensionId(id: string): boolean {
  return EXTENSION_ID.test(id);
}
