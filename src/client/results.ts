import { McpkitError } from "../jsonrpc/errors.js";
import { isObject } from "../jsonrpc/message.js";
import type { ResultObject } from "../jsonrpc/pending.js";

type Check = (result: ResultObject) => string | undefined;

const arrayOfNamed =
  (member: string, key = "name"): Check =>
  (result) => {
    const items = result[member];
    if (!Array.isArray(items)) return `"${member}" must be an array`;
    const bad = items.findIndex((item) => !isObject(item) || typeof item[key] !== "string");
    return bad === -1 ? undefined : `"${member}[${bad}]" must be an object with a string "${key}"`;
  };

const arrayOf =
  (member: string): Check =>
  (result) =>
    Array.isArray(result[member]) ? undefined : `"${member}" must be an array`;

const paginated =
  (check: Check): Check =>
  (result) => {
    if ("nextCursor" in result && typeof result.nextCursor !== "string")
      return '"nextCursor" must be a string';
    return check(result);
  };

const implementation = (value: unknown): boolean =>
  isObject(value) && typeof value.name === "string" && typeof value.version === "string";

/** Required members of each method's result. Unknown members are never checked, only kept. */
const CHECKS: { readonly [method: string]: Check } = {
  "tools/list": paginated(arrayOfNamed("tools")),
  "tools/call": arrayOf("content"),
  "resources/list": paginated(arrayOfNamed("resources", "uri")),
  "resources/templates/list": paginated(arrayOfNamed("resourceTemplates", "uriTemplate")),
  "resources/read": arrayOfNamed("contents", "uri"),
  "prompts/list": paginated(arrayOfNamed("prompts")),
  "prompts/get": arrayOf("messages"),
  "completion/complete": (result) =>
    isObject(result.completion) && Array.isArray(result.completion.values)
      ? undefined
      : '"completion.values" must be an array',
  "server/discover": (result) => {
    const versions = result.supportedVersions;
    if (!Array.isArray(versions) || !versions.every((v) => typeof v === "string")) {
      return '"supportedVersions" must be an array of strings';
    }
    if (!isObject(result.capabilities)) return '"capabilities" must be an object';
    return undefined;
  },
  initialize: (result) => {
    if (typeof result.protocolVersion !== "string") return '"protocolVersion" must be a string';
    if (!isObject(result.capabilities)) return '"capabilities" must be an object';
    if (!implementation(result.serverInfo)) return '"serverInfo" must have a string name and version';
    return undefined;
  },
};

/**
 * Checks that a result carries what its method requires and returns it unchanged (unknown members, falsy
 * `structuredContent` and cache hints included). Throws `McpkitError` `PROTOCOL` naming the missing member.
 * A 2026 `input_required` result is checked for its own members only (`inputRequests`, `requestState`, at
 * least one of them); the input loop takes it from there.
 */
export function checkResult(method: string, result: ResultObject): ResultObject {
  if ("resultType" in result && typeof result.resultType !== "string") {
    throw protocolError(method, '"resultType" must be a string', result);
  }
  if ("_meta" in result && !isObject(result._meta))
    throw protocolError(method, '"_meta" must be an object', result);
  const problem =
    result.resultType === "input_required"
      ? inputRequiredProblem(result)
      : isTaskHandle(method, result)
        ? undefined
        : CHECKS[method]?.(result);
  if (problem !== undefined) throw protocolError(method, problem, result);
  return result;
}

/** A `tools/call` answered with a task (2026 `resultType: "task"`, 2025 `{ task }`): checked by the task helpers. */
function isTaskHandle(method: string, result: ResultObject): boolean {
  if (method !== "tools/call") return false;
  return result.resultType === "task" || (isObject(result.task) && !("content" in result));
}

function inputRequiredProblem(result: ResultObject): string | undefined {
  const { inputRequests, requestState } = result;
  if (inputRequests === undefined && requestState === undefined) {
    return 'an input_required result needs "inputRequests" or "requestState"';
  }
  if (requestState !== undefined && typeof requestState !== "string")
    return '"requestState" must be a string';
  if (inputRequests === undefined) return undefined;
  if (!isObject(inputRequests)) return '"inputRequests" must be an object';
  const bad = Object.keys(inputRequests).find((key) => !isObject(inputRequests[key]));
  return bad === undefined ? undefined : `"inputRequests.${bad}" must be an object`;
}

function protocolError(method: string, problem: string, result: ResultObject): McpkitError {
  return new McpkitError("PROTOCOL", `invalid ${method} result: ${problem}`, { details: { method, result } });
}
