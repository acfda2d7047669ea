import { isObject } from "../../jsonrpc/message.js";
import { type InputRequired, isInputRequired } from "../state/input.js";
import type { RequestContext } from "./context.js";
import { invalidParams, methodNotFound } from "./errors.js";
import type { ServerConfig } from "./options.js";
import { type PluginAnswer, pluginAnswerKind } from "./plugin-answer.js";

type Params = { [key: string]: unknown };
type Result = { [key: string]: unknown };
type Answer<T> = Promise<T> | T;

/** The methods served by handler callbacks, the same in both eras. */
export const HANDLER_METHODS: ReadonlySet<string> = new Set([
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/read",
  "resources/templates/list",
  "prompts/list",
  "prompts/get",
  "completion/complete",
]);

/**
 * Checks a handler method's params, calls the handler's callback and checks the shape of its answer: at once
 * when the callback answered synchronously (no promise), else a promise. May throw instead of rejecting, so it
 * is called where a throw is a rejection (an `async` caller). Throws
 * `-32601` when the family is not served, `-32602` for bad params; a malformed answer is the handler's bug and
 * throws a plain Error (sent as `-32603`). `tools/call`, `prompts/get` and `resources/read` may answer with an
 * {@link InputRequired}; any other method that does is a handler bug too.
 */
export function invokeHandler(
  config: ServerConfig,
  method: string,
  params: Params,
  context: RequestContext,
): Answer<Result | InputRequired | PluginAnswer> {
  const handler = config.handler;
  switch (method) {
    case "tools/list":
      return checkedAnswer(need(handler.listTools, method)(listRequest(params), context), "tools");
    case "tools/call": {
      const name = requireString(params, "name");
      const args = params.arguments ?? {};
      if (!isObject(args)) throw invalidParams("arguments must be an object");
      return checkedAnswer(
        need(handler.callTool, method)({ name, arguments: args }, context),
        "content",
        true,
      );
    }
    case "resources/list":
      return checkedAnswer(need(handler.listResources, method)(listRequest(params), context), "resources");
    case "resources/read": {
      const uri = requireString(params, "uri");
      return checkedAnswer(need(handler.readResource, method)({ uri }, context), "contents", true);
    }
    case "resources/templates/list":
      return checkedAnswer(
        need(handler.listResourceTemplates, method)(listRequest(params), context),
        "resourceTemplates",
      );
    case "prompts/list":
      return checkedAnswer(need(handler.listPrompts, method)(listRequest(params), context), "prompts");
    case "prompts/get": {
      const name = requireString(params, "name");
      const args = params.arguments ?? {};
      if (!isObject(args) || !Object.values(args).every((v) => typeof v === "string")) {
        throw invalidParams("arguments must be an object of strings");
      }
      return checkedAnswer(
        need(handler.getPrompt, method)({ name, arguments: args as { [k: string]: string } }, context),
        "messages",
        true,
      );
    }
    case "completion/complete": {
      const ref = params.ref;
      const argument = params.argument;
      if (!isObject(ref) || (ref.type !== "ref/prompt" && ref.type !== "ref/resource")) {
        throw invalidParams('ref must be a "ref/prompt" or "ref/resource" reference');
      }
      if (!isObject(argument) || typeof argument.name !== "string" || typeof argument.value !== "string") {
        throw invalidParams("argument must have string name and value");
      }
      const { _meta: _dropped, ...request } = params;
      const answer = need(handler.complete, method)(request as never, context);
      return isThenable(answer) ? Promise.resolve(answer).then(checkedCompletion) : checkedCompletion(answer);
    }
    default:
      throw methodNotFound(method);
  }
}

function checkedCompletion(result: unknown): Result {
  if (!isObject(result) || !isObject(result.completion) || !Array.isArray(result.completion.values)) {
    throw new Error("complete handler must return { completion: { values: [...] } }");
  }
  return result;
}

/** {@link checked} once the callback's answer is there: at once unless it is a thenable. */
function checkedAnswer(
  answer: unknown,
  arrayKey: string,
  mayAskInput = false,
): Answer<Result | InputRequired | PluginAnswer> {
  if (!isThenable(answer)) return checked(answer, arrayKey, mayAskInput);
  return Promise.resolve(answer).then((result) => checked(result, arrayKey, mayAskInput));
}

/** True for a promise or any other object with a `then` method (what `await` would wait for). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

function need<T>(callback: T | undefined, method: string): T {
  if (callback === undefined) throw methodNotFound(method);
  return callback;
}

function listRequest(params: Params): { cursor?: string } {
  const cursor = params.cursor;
  if (cursor === undefined) return {};
  if (typeof cursor !== "string") throw invalidParams("cursor must be a string");
  return { cursor };
}

function requireString(params: Params, key: string): string {
  const value = params[key];
  if (typeof value !== "string") throw invalidParams(`${key} must be a string`);
  return value;
}

function checked(
  result: unknown,
  arrayKey: string,
  mayAskInput = false,
): Result | InputRequired | PluginAnswer {
  // A plugin answer (`runAsTask`) of a tool call: the plugins turn it into the result.
  if (arrayKey === "content" && pluginAnswerKind(result) !== undefined) return result as PluginAnswer;
  if (isInputRequired(result)) {
    if (mayAskInput) return result;
    throw new Error("only tools/call, prompts/get and resources/read handlers may return inputRequired()");
  }
  if (!isObject(result) || !Array.isArray(result[arrayKey])) {
    throw new Error(`handler result must be an object with a "${arrayKey}" array`);
  }
  return result;
}
