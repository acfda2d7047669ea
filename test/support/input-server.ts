/**
 * A server whose handlers ask the client for input (`inputRequired()`), for the input-round and subscription
 * tests of both eras. Every handler records how often it ran, so a test can prove a refused retry never reached
 * it.
 *
 * @example
 * const { server, calls } = inputServer();
 * // ... call "greet" twice; calls.greet === 2
 */
// Through the package name, so the stdio custom fixture compiled from custom-server.ts runs it on the built package.
import {
  type BuilderOptions,
  inputRequired,
  type RequestContext,
  type Server,
  ServerBuilder,
} from "mcpkit/server";

/** An elicitation asking for one string field. */
export function askFor(field: string, message = `Your ${field}?`) {
  return {
    method: "elicitation/create" as const,
    params: {
      message,
      requestedSchema: {
        type: "object" as const,
        properties: { [field]: { type: "string" as const } },
        required: [field],
      },
    },
  };
}

/** A one-message sampling request. */
export function sampleOf(prompt: string) {
  return {
    method: "sampling/createMessage" as const,
    params: {
      messages: [{ role: "user" as const, content: { type: "text" as const, text: prompt } }],
      maxTokens: 50,
    },
  };
}

/** The accepted field `name` of the answer under `key`, if any. */
export function accepted(context: RequestContext, key: string, name: string): string | undefined {
  const answer = context.inputResponses?.[key];
  if (answer?.action !== "accept") return undefined;
  const value = (answer.content as { [key: string]: unknown } | undefined)?.[name];
  return typeof value === "string" ? value : undefined;
}

/** The text of the sampling answer under `key`, if any. */
export function sampled(context: RequestContext, key: string): string | undefined {
  const content = context.inputResponses?.[key]?.content as { text?: unknown } | undefined;
  return typeof content?.text === "string" ? content.text : undefined;
}

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const OBJECT = { type: "object" } as const;

/** The input server and its call counters. */
export function inputServer(options: Partial<BuilderOptions> = {}): {
  server: Server;
  calls: { [handler: string]: number };
} {
  const calls: { [handler: string]: number } = {};
  const count = (name: string) => {
    calls[name] = (calls[name] ?? 0) + 1;
  };
  const server = new ServerBuilder({
    serverInfo: { name: "input", version: "1.0.0" },
    logger: { warn: () => {}, error: () => {} },
    listChanged: { tools: true, prompts: true, resources: true },
    subscribe: true,
    ...options,
  })
    .tool({ name: "greet", inputSchema: OBJECT }, (_args, context) => {
      count("greet");
      const name = accepted(context, "name", "name");
      return name === undefined ? inputRequired({ name: askFor("name") }) : text(`Hello, ${name}!`);
    })
    .tool({ name: "ask_llm", inputSchema: OBJECT }, (args, context) => {
      count("ask_llm");
      const answer = sampled(context, "answer");
      return answer === undefined
        ? inputRequired({ answer: sampleOf(String(args.question ?? "Why?")) })
        : text(`The model says: ${answer}`);
    })
    .tool({ name: "roots", inputSchema: OBJECT }, (_args, context) => {
      count("roots");
      const roots = context.inputResponses?.roots?.roots;
      if (!Array.isArray(roots)) return inputRequired({ roots: { method: "roots/list" } });
      return text(roots.map((root: { uri: string }) => root.uri).join(" "));
    })
    .tool({ name: "survey", inputSchema: OBJECT }, (_args, context) => {
      count("survey");
      const state = context.requestState as { name?: string } | null | undefined;
      if (state?.name !== undefined) {
        const color = accepted(context, "color", "color");
        return color === undefined
          ? inputRequired({ color: askFor("color") }, state)
          : text(`${state.name} likes ${color}`);
      }
      const name = accepted(context, "name", "name");
      return name === undefined
        ? inputRequired({ name: askFor("name") }, { step: 1 })
        : inputRequired({ color: askFor("color") }, { name });
    })
    .tool({ name: "everything", inputSchema: OBJECT }, (_args, context) => {
      count("everything");
      const wanted = {
        name: askFor("name"),
        answer: sampleOf("Greet"),
        roots: { method: "roots/list" as const },
      };
      const missing = Object.fromEntries(
        Object.entries(wanted).filter(([key]) => context.inputResponses?.[key] === undefined),
      );
      if (Object.keys(missing).length > 0) return inputRequired(missing, { asked: Object.keys(missing) });
      return text(`${sampled(context, "answer")} ${accepted(context, "name", "name")}`);
    })
    .tool({ name: "loop", inputSchema: OBJECT }, () => {
      count("loop");
      return inputRequired({ again: askFor("anything") });
    })
    .tool({ name: "state_only", inputSchema: OBJECT }, (_args, context) => {
      count("state_only");
      return context.requestState === undefined
        ? inputRequired({}, "later")
        : text(`resumed ${context.requestState}`);
    })
    .tool({ name: "url", inputSchema: OBJECT }, (_args, context) => {
      count("url");
      if (context.inputResponses?.visit === undefined) {
        return inputRequired({
          visit: {
            method: "elicitation/create",
            params: { mode: "url", message: "Sign in", url: "https://example.com/sign-in" },
          },
        });
      }
      return text("signed in");
    })
    .resource({ uri: "test://secret", name: "secret" }, (uri, context) => {
      count("secret");
      const password = accepted(context, "password", "password");
      if (password === undefined) return inputRequired({ password: askFor("password") }, { uri });
      return { contents: [{ uri, text: `the secret, unlocked by ${password}` }] };
    })
    .resource({ uri: "test://plain", name: "plain" }, (uri) => ({ contents: [{ uri, text: "plain" }] }))
    .prompt({ name: "contextual" }, (_args, context) => {
      count("contextual");
      const topic = accepted(context, "topic", "topic");
      if (topic === undefined) return inputRequired({ topic: askFor("topic") });
      return { messages: [{ role: "user", content: { type: "text", text: `Talk about ${topic}` } }] };
    })
    .build();
  return { server, calls };
}

/** An accepted elicitation answer. */
export const accept = (content: { [key: string]: unknown }) => ({ action: "accept", content });

/** A sampling answer. */
export const reply = (value: string) => ({
  role: "assistant",
  content: { type: "text", text: value },
  model: "test-model",
  stopReason: "endTurn",
});
