/**
 * Validates JSON-RPC messages against the official MCP JSON Schema of their protocol era.
 *
 * Every message is checked against the most specific `$defs` entry the schema has for it: a request or a
 * notification by its method (and direction), a result by the method of the request it answers, an error
 * response against `JSONRPCErrorResponse`. Messages with methods the schema does not know, and responses to
 * requests never seen, fall back to the generic JSON-RPC defs.
 *
 * The schemas are read from `../shared/spec/<era>/schema.json` beside the repository (override the folder with
 * `MCPKIT_SPEC_DIR`). Each def is compiled once per era per process, on first use. Where they are absent (a
 * fresh clone with nothing beside it), {@link schemasAvailable} is false and validators only count messages:
 * the schema layer of the tests is skipped, announced once by test/support/spec-setup.ts. With
 * `MCPKIT_REQUIRE_SPEC=1` (CI) their absence is an error instead.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ErrorObject, ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";

/** A protocol era with an official schema. */
export type Era = "2025-11-25" | "2026-07-28";
/** Which side sent a message. */
export type Side = "client" | "server";

export const ERAS: readonly Era[] = ["2025-11-25", "2026-07-28"];

const PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion";
const LEGACY: Era = "2025-11-25";
const MODERN: Era = "2026-07-28";

/** The repository root (the folder holding package.json). */
export const repoRoot: string = fileURLToPath(new URL("../../", import.meta.url));

/** The folder holding `<era>/schema.json`: `$MCPKIT_SPEC_DIR`, else `../shared/spec` beside the repository. */
export function specDir(): string {
  const override = process.env.MCPKIT_SPEC_DIR;
  return override ? path.resolve(override) : path.resolve(repoRoot, "../shared/spec");
}

export function schemaPath(era: Era): string {
  return path.resolve(specDir(), era, "schema.json");
}

/** Where each era's schema is missing, if anywhere. */
export function missingSchemas(): string[] {
  return ERAS.map(schemaPath).filter((file) => !fs.existsSync(file));
}

/** Whether both official schemas are present; without them, validators check nothing. */
export const schemasAvailable: boolean = missingSchemas().length === 0;

if (!schemasAvailable && process.env.MCPKIT_REQUIRE_SPEC === "1") {
  throw new Error(
    `MCPKIT_REQUIRE_SPEC=1 but the official MCP schemas are missing: ${missingSchemas().join(", ")}`,
  );
}

function isEra(value: unknown): value is Era {
  return value === LEGACY || value === MODERN;
}

function isObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function other(side: Side): Side {
  return side === "client" ? "server" : "client";
}

// ---------------------------------------------------------------------------------------------------------
// Errors

/** One schema violation: where in the message, and what is wrong. */
export interface WireProblem {
  instancePath: string;
  message: string;
}

const MAX_PROBLEMS = 12;
const MAX_JSON = 1500;

function describe(message: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(message) ?? String(message);
  } catch {
    json = String(message);
  }
  return json.length > MAX_JSON ? `${json.slice(0, MAX_JSON)}… (${json.length} chars)` : json;
}

/** A message that does not match its schema def. */
export class WireSchemaError extends Error {
  override readonly name = "WireSchemaError";
  readonly era: Era;
  readonly from: Side;
  /** The message's method, or for a response the method of the request it answers (when known). */
  readonly method: string | undefined;
  /** The `$defs` entry the message was checked against. */
  readonly def: string;
  readonly problems: readonly WireProblem[];
  /** The offending message. */
  readonly wireMessage: unknown;

  constructor(
    era: Era,
    from: Side,
    method: string | undefined,
    def: string,
    problems: readonly WireProblem[],
    wireMessage: unknown,
  ) {
    const shown = problems.slice(0, MAX_PROBLEMS).map((p) => `  ${p.instancePath || "/"}: ${p.message}`);
    if (problems.length > MAX_PROBLEMS) shown.push(`  … and ${problems.length - MAX_PROBLEMS} more`);
    super(
      `invalid MCP ${era} message from ${from} to ${other(from)} (method ${method === undefined ? "unknown" : JSON.stringify(method)}), ` +
        `checked against ${def}:\n${shown.join("\n")}\n  message: ${describe(wireMessage)}`,
    );
    this.era = era;
    this.from = from;
    this.method = method;
    this.def = def;
    this.problems = problems;
    this.wireMessage = wireMessage;
  }
}

function problemsOf(errors: readonly ErrorObject[] | null | undefined): WireProblem[] {
  const seen = new Set<string>();
  const out: WireProblem[] = [];
  for (const error of errors ?? []) {
    let message = error.message ?? error.keyword;
    if (error.keyword === "const") message += ` ${JSON.stringify(error.params.allowedValue)}`;
    else if (error.keyword === "enum") message += ` ${JSON.stringify(error.params.allowedValues)}`;
    else if (error.keyword === "additionalProperties")
      message += ` ${JSON.stringify(error.params.additionalProperty)}`;
    const key = `${error.instancePath}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ instancePath: error.instancePath, message });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// One era's schema: its compiled defs and method tables

type SchemaDef = { [key: string]: unknown };

interface MethodTables {
  client: Map<string, string>;
  server: Map<string, string>;
  /** Every def of this kind with a `method` const, whatever its direction. */
  any: Map<string, string>;
}

/** base64, as the schema's `format: "byte"` asks. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** An absolute URI: a scheme, a colon, no whitespace or control characters. */
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s\p{Cc}]*$/u;
/** An RFC 6570 template: no whitespace or control characters, balanced braces. */
const URI_TEMPLATE = /^(?:[^\s\p{Cc}{}]|\{[^\s\p{Cc}{}]+\})*$/u;

/** The schema, its compiled validators and method tables for one era. Built once per era per process. */
export class EraSchema {
  readonly era: Era;
  readonly defNames: readonly string[];
  readonly requests: MethodTables;
  readonly notifications: MethodTables;
  /** Result defs that the schema lets an `InputRequiredResult` stand in for (2026-07-28). */
  readonly inputRequiredAlternatives: ReadonlySet<string>;
  private readonly defs: { [name: string]: SchemaDef };
  private readonly id: string;
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(era: Era) {
    this.era = era;
    const file = schemaPath(era);
    let root: { $defs?: { [name: string]: SchemaDef } };
    try {
      root = JSON.parse(fs.readFileSync(file, "utf8")) as typeof root;
    } catch (cause) {
      throw new Error(`cannot read the MCP ${era} schema at ${file} (set MCPKIT_SPEC_DIR to override)`, {
        cause,
      });
    }
    this.defs = root.$defs ?? {};
    this.defNames = Object.keys(this.defs);
    this.id = `https://mcpkit.invalid/spec/${era}/schema.json`;
    this.ajv = new Ajv2020({
      allErrors: true,
      allowUnionTypes: true,
      formats: {
        byte: BASE64,
        uri: URI,
        "uri-template": URI_TEMPLATE,
      },
    });
    this.ajv.addSchema({ ...root, $id: this.id });

    this.requests = this.tables("ClientRequest", "ServerRequest", (name, def) => {
      const required = def.required;
      return name.endsWith("Request") || (Array.isArray(required) && required.includes("id"));
    });
    this.notifications = this.tables("ClientNotification", "ServerNotification", (name) =>
      name.endsWith("Notification"),
    );

    const alternatives = new Set<string>();
    for (const [name, def] of Object.entries(this.defs)) {
      if (!name.endsWith("ResultResponse")) continue;
      const result = (def.properties as SchemaDef | undefined)?.result;
      const anyOf = isObject(result) && Array.isArray(result.anyOf) ? result.anyOf : [];
      const refs = anyOf.map((branch) => (isObject(branch) ? refName(branch.$ref) : undefined));
      if (!refs.includes("InputRequiredResult")) continue;
      for (const ref of refs) if (ref && ref !== "InputRequiredResult") alternatives.add(ref);
    }
    this.inputRequiredAlternatives = alternatives;
  }

  has(def: string): boolean {
    return Object.hasOwn(this.defs, def);
  }

  /** The result def answering a request def: `FooRequest` → `FooResult`, else `EmptyResult`. */
  resultDefFor(requestDef: string): string {
    if (requestDef.endsWith("Request")) {
      const candidate = `${requestDef.slice(0, -"Request".length)}Result`;
      if (this.has(candidate)) return candidate;
    }
    return "EmptyResult";
  }

  /** Validator for a def, as it stands (compiled on first use). */
  def(name: string): ValidateFunction {
    return this.cached(name, () => {
      const validate = this.ajv.getSchema(`${this.id}#/$defs/${name}`);
      if (!validate) throw new Error(`MCP ${this.era} schema has no def ${name}`);
      return validate;
    });
  }

  /**
   * Validator for a request or notification def used as a wire message. Defs that describe only the inner
   * request (2026-07-28 input requests) are combined with the JSON-RPC envelope.
   */
  wireDef(name: string, envelope: "JSONRPCRequest" | "JSONRPCNotification"): ValidateFunction {
    const required = this.defs[name]?.required;
    if (Array.isArray(required) && required.includes("jsonrpc")) return this.def(name);
    return this.cached(`${envelope}+${name}`, () =>
      this.ajv.compile({ allOf: [{ $ref: this.ref(envelope) }, { $ref: this.ref(name) }] }),
    );
  }

  /** Validator for a `JSONRPCResultResponse` whose `result` is the given def. */
  resultResponse(resultDef: string): ValidateFunction {
    return this.cached(`JSONRPCResultResponse+${resultDef}`, () =>
      this.ajv.compile({
        type: "object",
        $ref: this.ref("JSONRPCResultResponse"),
        properties: { result: { $ref: this.ref(resultDef) } },
      }),
    );
  }

  /** Compiles every def (a self-test of the schema against ajv); returns how many compiled. */
  compileAll(): number {
    for (const name of this.defNames) this.def(name);
    return this.defNames.length;
  }

  /** How many validators this era has compiled so far. */
  get compiledCount(): number {
    return this.compiled.size;
  }

  private ref(name: string): string {
    return `${this.id}#/$defs/${name}`;
  }

  private cached(key: string, build: () => ValidateFunction): ValidateFunction {
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = build();
      this.compiled.set(key, validate);
    }
    return validate;
  }

  /** The member defs of a union def (`ClientRequest`…), by name; an inlined single member by its twin's name. */
  private members(union: string): string[] {
    const def = this.defs[union];
    if (!def) return [];
    if (Array.isArray(def.anyOf)) {
      return def.anyOf.flatMap((branch) => {
        const name = isObject(branch) ? refName(branch.$ref) : undefined;
        return name ? [name] : [];
      });
    }
    const direct = refName(def.$ref);
    if (direct) return [direct];
    // The schema generator inlines a one-member union (2026: ClientNotification = CancelledNotification).
    const text = JSON.stringify(def);
    const twin = Object.entries(this.defs).find(([name, d]) => name !== union && JSON.stringify(d) === text);
    return [twin ? twin[0] : union];
  }

  private tables(
    clientUnion: string,
    serverUnion: string,
    isKind: (name: string, def: SchemaDef) => boolean,
  ): MethodTables {
    const client = new Map<string, string>();
    const server = new Map<string, string>();
    const any = new Map<string, string>();
    const add = (table: Map<string, string>, name: string): void => {
      const method = methodConst(this.defs[name]);
      if (method !== undefined && !table.has(method)) table.set(method, name);
    };
    for (const name of this.members(clientUnion)) add(client, name);
    for (const name of this.members(serverUnion)) add(server, name);
    for (const [method, name] of [...client, ...server]) if (!any.has(method)) any.set(method, name);
    for (const [name, def] of Object.entries(this.defs)) {
      if (name === clientUnion || name === serverUnion || !isKind(name, def)) continue;
      add(any, name);
    }
    return { client, server, any };
  }
}

function refName(ref: unknown): string | undefined {
  return typeof ref === "string" && ref.startsWith("#/$defs/") ? ref.slice("#/$defs/".length) : undefined;
}

function methodConst(def: SchemaDef | undefined): string | undefined {
  const properties = def?.properties;
  const method = isObject(properties) ? properties.method : undefined;
  return isObject(method) && typeof method.const === "string" ? method.const : undefined;
}

const eraSchemas = new Map<Era, EraSchema>();

/** The (cached) schema of an era. */
export function eraSchema(era: Era): EraSchema {
  let schema = eraSchemas.get(era);
  if (!schema) {
    schema = new EraSchema(era);
    eraSchemas.set(era, schema);
  }
  return schema;
}

// ---------------------------------------------------------------------------------------------------------
// The validator

export interface WireValidatorOptions {
  /**
   * Reject a request or notification that the schema only defines for the other direction (e.g. a server
   * sending `tools/call`). Default `false`: such a message is still checked against its method's def.
   */
  strictDirection?: boolean;
}

interface Target {
  schema: EraSchema;
  validate: ValidateFunction;
  def: string;
  method: string | undefined;
}

function targetOf(
  schema: EraSchema,
  validate: ValidateFunction,
  def: string,
  method: string | undefined,
): Target {
  return { schema, validate, def, method };
}

interface Outstanding {
  era: Era;
  method: string;
  resultDef: string;
}

/**
 * Checks a stream of JSON-RPC messages, in order, against the official schema of one era (or, from
 * {@link WireValidator.auto}, of the era the client's first message picks).
 *
 * @example
 * const validator = new WireValidator("2026-07-28");
 * validator.check(request, "client"); // throws WireSchemaError when invalid
 */
export class WireValidator {
  private current: Era | undefined;
  private autoEra = false;
  private checked = 0;
  private readonly strictDirection: boolean;
  /** Requests awaiting an answer, by the side that sent them, by id. */
  private readonly outstanding: { [side in Side]: Map<string | number, Outstanding> } = {
    client: new Map(),
    server: new Map(),
  };
  /** Auto mode: messages seen before the era was decided. */
  private backlog: Array<{ message: unknown; from: Side }> = [];

  constructor(era: Era, options: WireValidatorOptions = {}) {
    if (!isEra(era)) throw new TypeError(`unknown MCP era ${String(era)}`);
    this.current = era;
    this.strictDirection = options.strictDirection ?? false;
  }

  /**
   * A validator that decides the era from the client's first message: `initialize`, or a message without
   * `params._meta["io.modelcontextprotocol/protocolVersion"]`, means 2025-11-25; otherwise the version named
   * there (2026-07-28 unless it names another known era). A later client `initialize` switches to 2025-11-25
   * (a client that tried 2026 first and fell back). Messages seen before the decision are checked then.
   */
  static auto(options: WireValidatorOptions = {}): WireValidator {
    const validator = new WireValidator(LEGACY, options);
    validator.current = undefined;
    validator.autoEra = true;
    return validator;
  }

  /** The era in force, `undefined` while an auto validator has not decided yet. */
  get era(): Era | undefined {
    return this.current;
  }

  /** How many messages have been checked. */
  get count(): number {
    return this.checked;
  }

  /** Requests still awaiting a response. */
  get outstandingCount(): number {
    return this.outstanding.client.size + this.outstanding.server.size;
  }

  /**
   * Checks one message sent by `from`; throws {@link WireSchemaError} when it does not match its def.
   * Call it for every message of a connection, in wire order: results are matched to their requests.
   */
  check(message: unknown, from: Side): void {
    if (this.autoEra) {
      if (from === "client") {
        if (this.current === undefined) {
          this.current = claimedEra(message);
          const backlog = this.backlog;
          this.backlog = [];
          backlog.push({ message, from });
          let first: unknown;
          for (const item of backlog) {
            try {
              this.checkIn(this.current, item.message, item.from);
            } catch (error) {
              first ??= error;
            }
          }
          if (first !== undefined) throw first;
          return;
        }
        if (isObject(message) && message.method === "initialize" && "id" in message) this.current = LEGACY;
      } else if (this.current === undefined) {
        this.backlog.push({ message, from });
        return;
      }
    }
    this.checkIn(this.current ?? LEGACY, message, from);
  }

  private checkIn(era: Era, message: unknown, from: Side): void {
    this.checked++;
    if (!schemasAvailable) return;
    const target = this.target(era, message, from);
    if (target.validate(message)) return;
    throw new WireSchemaError(
      target.schema.era,
      from,
      target.method,
      target.def,
      problemsOf(target.validate.errors),
      message,
    );
  }

  /** Picks the def a message is checked against, and tracks requests and their answers. */
  private target(era: Era, message: unknown, from: Side): Target {
    const schema = eraSchema(era);
    if (!isObject(message)) {
      return targetOf(schema, schema.def("JSONRPCMessage"), "JSONRPCMessage", undefined);
    }

    if ("method" in message) {
      const method = typeof message.method === "string" ? message.method : undefined;
      const isRequest = "id" in message;
      const tables = isRequest ? schema.requests : schema.notifications;
      const generic = isRequest ? "JSONRPCRequest" : "JSONRPCNotification";
      let def = method === undefined ? undefined : tables[from].get(method);
      if (def === undefined && method !== undefined) {
        def = tables.any.get(method);
        if (def !== undefined && this.strictDirection) {
          throw new WireSchemaError(
            era,
            from,
            method,
            `${from === "client" ? "Client" : "Server"}${isRequest ? "Request" : "Notification"}`,
            [{ instancePath: "/method", message: `${def} is not sent by the ${from} in ${era}` }],
            message,
          );
        }
      }
      if (
        isRequest &&
        method !== undefined &&
        (typeof message.id === "string" || typeof message.id === "number")
      ) {
        let resultDef = def === undefined ? "Result" : schema.resultDefFor(def);
        // 2025-11-25 task-augmented requests are answered with a CreateTaskResult (only the augmentable methods:
        // the official v1 client also repeats its `task` param on tasks/get).
        if (
          AUGMENTABLE.has(method) &&
          isObject(message.params) &&
          isObject(message.params.task) &&
          schema.has("CreateTaskResult")
        ) {
          resultDef = "CreateTaskResult";
        }
        this.outstanding[from].set(message.id, { era, method, resultDef });
      }
      const validate = def === undefined ? schema.def(generic) : schema.wireDef(def, generic);
      return targetOf(schema, validate, def ?? generic, method);
    }

    const id = message.id;
    const answered =
      typeof id === "string" || typeof id === "number" ? this.outstanding[other(from)] : undefined;
    const request = answered?.get(id as string | number);
    if (request) answered?.delete(id as string | number);
    const responseSchema = request ? eraSchema(request.era) : schema;

    if ("error" in message) {
      return targetOf(
        responseSchema,
        responseSchema.def("JSONRPCErrorResponse"),
        "JSONRPCErrorResponse",
        request?.method,
      );
    }
    if ("result" in message) {
      let resultDef = request?.resultDef ?? "Result";
      if (
        isObject(message.result) &&
        message.result.resultType === "input_required" &&
        responseSchema.inputRequiredAlternatives.has(resultDef)
      ) {
        resultDef = "InputRequiredResult";
      }
      const validate =
        resultDef === "Result"
          ? responseSchema.def("JSONRPCResultResponse")
          : responseSchema.resultResponse(resultDef);
      const defLabel =
        resultDef === "Result" ? "JSONRPCResultResponse" : `JSONRPCResultResponse<${resultDef}>`;
      return targetOf(responseSchema, validate, defLabel, request?.method);
    }
    return targetOf(schema, schema.def("JSONRPCMessage"), "JSONRPCMessage", undefined);
  }
}

/** The era a client message claims (auto mode). */
function claimedEra(message: unknown): Era {
  if (!isObject(message) || message.method === "initialize") return LEGACY;
  const params = message.params;
  const meta = isObject(params) ? params._meta : undefined;
  if (!isObject(meta) || !(PROTOCOL_VERSION_META in meta)) return LEGACY;
  const version = meta[PROTOCOL_VERSION_META];
  return isEra(version) ? version : MODERN;
}

/** The 2025-11-25 requests a `task` param turns into a task. */
const AUGMENTABLE: ReadonlySet<string> = new Set([
  "tools/call",
  "sampling/createMessage",
  "elicitation/create",
]);
