/**
 * Node-only helpers of `mcpkit/auth` (`mcpkit/auth/node`): a credential store in a file, and a loopback
 * listener for authorization redirects.
 */
export { FileCredentialStore } from "./file-store.js";
export { type LoopbackRedirect, type LoopbackRedirectOptions, startLoopbackRedirect } from "./loopback.js";
