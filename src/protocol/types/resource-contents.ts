import type { MetaObject, Open } from "./common.js";

export interface TextResourceContents extends Open {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: MetaObject;
}

export interface BlobResourceContents extends Open {
  uri: string;
  mimeType?: string;
  /** Base64 bytes. */
  blob: string;
  _meta?: MetaObject;
}

/** The contents of a resource: text or base64 blob. */
export type ResourceContents = TextResourceContents | BlobResourceContents;
