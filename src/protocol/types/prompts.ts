import type { Icon, MetaObject, Open, Paginated, ResultBase, Role } from "./common.js";
import type { ContentBlock } from "./content.js";

export interface PromptArgument extends Open {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

/** A prompt template the server offers. */
export interface Prompt extends Open {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: MetaObject;
}

export interface PromptMessage extends Open {
  role: Role;
  content: ContentBlock;
}

export interface ListPromptsResult extends ResultBase, Paginated {
  prompts: Prompt[];
}

export interface GetPromptResult extends ResultBase {
  description?: string;
  messages: PromptMessage[];
}
