import type { Annotations, Icon, MetaObject, Open, Paginated, ResultBase } from "./common.js";
import type { ResourceContents } from "./resource-contents.js";

/** A resource the server can read. */
export interface Resource extends Open {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: MetaObject;
}

/** A parameterized family of resources (RFC 6570 URI template). */
export interface ResourceTemplate extends Open {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: MetaObject;
}

export interface ListResourcesResult extends ResultBase, Paginated {
  resources: Resource[];
}

export interface ListResourceTemplatesResult extends ResultBase, Paginated {
  resourceTemplates: ResourceTemplate[];
}

export interface ReadResourceResult extends ResultBase {
  contents: ResourceContents[];
}
