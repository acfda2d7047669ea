import type { Annotations, MetaObject, Open } from "./common.js";
import type { ResourceContents } from "./resource-contents.js";
import type { Resource } from "./resources.js";

// A resource's contents have a file of their own, which content.ts and resources.ts both import (so neither
// imports the other); they are still exported from here.
export type { BlobResourceContents, ResourceContents, TextResourceContents } from "./resource-contents.js";

export interface TextContent extends Open {
  type: "text";
  text: string;
  annotations?: Annotations;
  _meta?: MetaObject;
}

export interface ImageContent extends Open {
  type: "image";
  /** Base64 image bytes. */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: MetaObject;
}

export interface AudioContent extends Open {
  type: "audio";
  /** Base64 audio bytes. */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: MetaObject;
}

/** A resource's contents inlined in a message. */
export interface EmbeddedResource extends Open {
  type: "resource";
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: MetaObject;
}

/** A pointer to a resource the client may read. */
export interface ResourceLink extends Resource {
  type: "resource_link";
}

/** Any content block of a tool result or prompt message. */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;
