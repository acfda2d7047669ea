import type { Open, ResultBase } from "./common.js";

export interface PromptReference extends Open {
  type: "ref/prompt";
  name: string;
  title?: string;
}

export interface ResourceTemplateReference extends Open {
  type: "ref/resource";
  uri: string;
}

/** The params of `completion/complete` (without `_meta`). */
export interface CompleteParams extends Open {
  ref: PromptReference | ResourceTemplateReference;
  argument: { name: string; value: string };
  context?: { arguments?: { [name: string]: string } };
}

export interface CompleteResult extends ResultBase {
  completion: {
    /** At most 100 values. */
    values: string[];
    total?: number;
    hasMore?: boolean;
    [key: string]: unknown;
  };
}
