const PLUGIN_ANSWER = Symbol.for("mcpkit.PluginAnswer");

/**
 * A handler answer that a plugin turns into the result (`runAsTask` is one: the tasks plugin answers it with a
 * task handle, or runs its work inline). `kind` names the plugin's entry in {@link ServerPlugin.answers}.
 */
export interface PluginAnswer {
  readonly [PLUGIN_ANSWER]: string;
}

/** Makes a {@link PluginAnswer} of `kind` carrying `fields` (frozen). */
export function pluginAnswer<T extends object>(kind: string, fields: T): T & PluginAnswer {
  return Object.freeze({ ...fields, [PLUGIN_ANSWER]: kind });
}

/** The kind of a {@link PluginAnswer}; `undefined` for any other value. */
export function pluginAnswerKind(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const kind = (value as { [PLUGIN_ANSWER]?: unknown })[PLUGIN_ANSWER];
  return typeof kind === "string" ? kind : undefined;
}

/**
 * What the plugins' `context` hooks returned for one handler call, by plugin name (`ctx.pluginData`): each
 * plugin's own per-request data, such as a tracing span. Empty (and frozen) when no plugin set any.
 */
export interface PluginData {
  /** The data the plugin of that name returned from its `context` hook. */
  readonly [plugin: string]: unknown;
}
