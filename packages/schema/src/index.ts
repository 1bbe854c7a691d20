export { SCHEMA, type SchemaVersion } from "./schema-version.js";
export * from "./enums.js";
export * from "./u64.js";
export * from "./events.js";
export { CgError, type CgErrorOptions, brandCheck } from "./cg-error.js";
