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

/** Fields a plugin sets on the handler context it is asked about. */
export interface PluginContextFields {
  /** See `RequestContext.taskAugmented`. */
  readonly taskAugmented?: boolean;
}
