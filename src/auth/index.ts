export * from "./server/index.js";
