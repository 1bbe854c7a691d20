// One import for candle-graph traces. The NVML probe is deliberately not re-exported here: it
// loads native code, so it lives under the `@cg/trace/cuda` subpath.

export * from "@cg/clock";
export * from "@cg/memory";
export * from "@cg/parser";
export * from "@cg/schema";
export * from "@cg/writer";
