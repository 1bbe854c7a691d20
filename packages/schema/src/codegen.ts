// `@cg/schema/codegen`: the code-generation kit the @cg packages build their fast paths with
// (straight-line functions compiled from the layout table, with a fallback where code generation is
// forbidden). Internal plumbing, not part of the trace contract: a reader of traces needs the root
// entry only, so the kit stays off it.
export {
  generatedFunction,
  type SourceCompiler,
  SourceConstants,
  sourceString,
} from "./generated-function.js";
