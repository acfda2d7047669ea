import { ErrorCode } from "../jsonrpc/codes.js";
import { JsonRpcError } from "../jsonrpc/errors.js";
import type { CliArgs } from "./args.js";
import { promptArguments, splitPairs } from "./coerce.js";
import { ExitCode, type ExitStatus, UsageError } from "./exit-codes.js";
import type { Output } from "./io.js";
import {
  renderCompletion,
  renderInfo,
  renderPromptResult,
  renderPrompts,
  renderReadResult,
  renderResources,
  renderTools,
} from "./render.js";
import type { Session } from "./session.js";

/**
 * The read-only commands: `info`, `tools`, `resources`, `read`, `prompts`, `prompt`, `complete`. Lists are
 * fetched whole (every page, within the bounds of `listAll*`); a family the server does not offer is empty.
 */
export async function inspect(session: Session, args: CliArgs, out: Output): Promise<ExitStatus> {
  const { client, info } = session;
  const options = { signal: out.io.interrupt };
  switch (args.command) {
    case "info":
      out.result(info, () => renderInfo(info));
      break;
    case "tools": {
      const tools = info.capabilities.tools === undefined ? [] : await client.listAllTools(options);
      out.result({ tools }, () => renderTools(tools, out.width));
      break;
    }
    case "resources": {
      const offered = info.capabilities.resources !== undefined;
      const resources = offered ? await client.listAllResources(options) : [];
      const templates = offered ? await templatesOf(session, out) : [];
      out.result({ resources, resourceTemplates: templates }, () =>
        renderResources(resources, templates, out.width),
      );
      break;
    }
    case "read": {
      const result = await client.readResource(args.operands[0] ?? "", options);
      out.result(result, () => renderReadResult(result));
      break;
    }
    case "prompts": {
      const prompts = info.capabilities.prompts === undefined ? [] : await client.listAllPrompts(options);
      out.result({ prompts }, () => renderPrompts(prompts, out.width));
      break;
    }
    case "prompt": {
      const [name = "", ...pairs] = args.operands;
      const promptArgs = args.argsJson ?? (await checkedPromptArguments(session, name, pairs, out));
      const result = await client.getPrompt(name, stringValues(promptArgs), options);
      out.result(result, () => renderPromptResult(result));
      break;
    }
    case "complete": {
      const [[argument, value] = ["", ""]] = splitPairs(args.operands, "complete");
      const context = Object.fromEntries(splitPairs(args.context, "--context"));
      const ref = args.ref ?? { type: "ref/prompt" as const, name: "" };
      const result = await client.complete(
        {
          ref,
          argument: { name: argument, value },
          ...(args.context.length > 0 ? { context: { arguments: context } } : {}),
        },
        options,
      );
      out.result(result, () => renderCompletion(result));
      break;
    }
    default:
      throw new UsageError(`${args.command} is not a read-only command`);
  }
  return ExitCode.OK;
}

/** The resource templates; a server that does not serve the method has none. */
async function templatesOf(session: Session, out: Output) {
  try {
    return await session.client.listAllResourceTemplates({ signal: out.io.interrupt });
  } catch (error) {
    if (error instanceof JsonRpcError && error.code === ErrorCode.MethodNotFound) return [];
    throw error;
  }
}

/** Prompt arguments from `key=value` words, checked against the prompt's declared arguments. */
async function checkedPromptArguments(session: Session, name: string, pairs: string[], out: Output) {
  if (pairs.length === 0) return undefined;
  const prompts = await session.client.listAllPrompts({ signal: out.io.interrupt });
  const prompt = prompts.find((p) => p.name === name);
  if (prompt === undefined) throw new UsageError(`the server has no prompt "${name}" (see: prompts)`);
  return promptArguments(name, pairs, prompt.arguments);
}

function stringValues(args: { [key: string]: unknown } | undefined): { [key: string]: string } | undefined {
  if (args === undefined) return undefined;
  const strings: { [key: string]: string } = {};
  for (const [key, value] of Object.entries(args)) {
    if (typeof value !== "string") throw new UsageError(`prompt argument "${key}" must be a string`);
    strings[key] = value;
  }
  return strings;
}
