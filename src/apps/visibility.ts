import type { Tool } from "../protocol/types/tools.js";
import { visibilityOf } from "./meta.js";

/**
 * The tools an agent may see: those whose `_meta.ui.visibility` includes `"model"` (the default). App-only tools
 * are left out, as the spec requires.
 *
 * @example
 * const forModel = modelVisibleTools((await client.listTools()).tools);
 */
export function modelVisibleTools<T extends Tool>(tools: readonly T[]): T[] {
  return tools.filter((tool) => visibilityOf(tool).includes("model"));
}

/** True when a view may call `tool` (its visibility includes `"app"`, the default). */
export function isAppCallable(tool: Tool): boolean {
  return visibilityOf(tool).includes("app");
}

/** True when only views may call `tool` (visibility exactly `["app"]`). */
export function isAppOnly(tool: Tool): boolean {
  const visibility = visibilityOf(tool);
  return visibility.length === 1 && visibility[0] === "app";
}

/** True when only the agent may call `tool` (visibility exactly `["model"]`). */
export function isModelOnly(tool: Tool): boolean {
  const visibility = visibilityOf(tool);
  return visibility.length === 1 && visibility[0] === "model";
}
