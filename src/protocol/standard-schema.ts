/**
 * Types of the Standard Schema (https://standardschema.dev) and Standard JSON Schema interfaces, version 1,
 * written here so that mcpkit has no runtime (or type) dependency on any schema library. zod 4.2+, ArkType
 * 2.1.28+ and Valibot (through `toStandardJsonSchema` of `@valibot/to-json-schema`) implement both.
 */

/** A schema that can validate a value: `~standard.validate`. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaV1.Props<Input, Output>;
}

/** The members of {@link StandardSchemaV1}. */
export declare namespace StandardSchemaV1 {
  /** The `~standard` object: version, vendor, `validate` and the inferred types. */
  interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    /** Validates a value: its output, or the issues found. */
    readonly validate: (
      value: unknown,
      options?: Options | undefined,
    ) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
  }
  /** Options a library may take in `validate`. */
  interface Options {
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }
  /** What `validate` answers. */
  type Result<Output> = SuccessResult<Output> | FailureResult;
  /** A valid value, as the schema outputs it. */
  interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  /** An invalid value: what is wrong with it. */
  interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  /** One problem, with where it is. */
  interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  /** A path segment given as an object. */
  interface PathSegment {
    readonly key: PropertyKey;
  }
  /** The schema's input and output types (types only). */
  interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
  /** The type a schema accepts. */
  type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["input"];
  /** The type a schema produces. */
  type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["output"];
}

/** A schema that can describe itself as JSON Schema: `~standard.jsonSchema.input/output`. */
export interface StandardJSONSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardJSONSchemaV1.Props<Input, Output>;
}

/** The members of {@link StandardJSONSchemaV1}. */
export declare namespace StandardJSONSchemaV1 {
  /** The `~standard` object: version, vendor and the JSON Schema converter. */
  interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly types?: StandardSchemaV1.Types<Input, Output> | undefined;
    readonly jsonSchema: Converter;
  }
  /** Converts the schema to JSON Schema, for its input or its output. */
  interface Converter {
    /** The JSON Schema of what the schema accepts. May throw for an unsupported target. */
    readonly input: (options: Options) => Record<string, unknown>;
    /** The JSON Schema of what the schema produces. May throw for an unsupported target. */
    readonly output: (options: Options) => Record<string, unknown>;
  }
  /** The JSON Schema dialect asked for (mcpkit asks for `draft-2020-12`). */
  type Target = "draft-2020-12" | "draft-07" | "openapi-3.0" | ({} & string);
  /** Options of a conversion. */
  interface Options {
    readonly target: Target;
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }
}

/**
 * What mcpkit accepts in place of a JSON Schema: a schema implementing both interfaces, so that it can validate
 * values and be sent on the wire as JSON Schema 2020-12.
 */
export interface StandardSchemaWithJson<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaV1.Props<Input, Output> & StandardJSONSchemaV1.Props<Input, Output>;
}
