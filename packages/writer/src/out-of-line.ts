// Why the real span paths are entered through a function V8 never inlines.
//
// Instrumented code runs with a real session during the captured step and with the closed one
// (NOOP_SESSION, the same class) on every other step, so a call site such as
// `trace.beginSpan("layer").end()` is optimized with the real path's feedback. V8 inlines a method
// into such a caller only if the method fits the caller's inlining budget, and once the method has
// optimized code of its own, its size counts with everything that code inlined. `beginSpan` and
// `end` are a flag check and a call; compiled on their own after a captured step they inlined the
// whole real path (~900 bytecode bytes, the whole budget), and then whether the caller could
// inline them depended on which got compiled first: the closed call cost 1.5 ns in some processes
// and 4–5 ns in others (measured with --trace-turbo-inlining).
//
// V8 never inlines a function whose bytecode is longer than its inlining limit
// (--max-inlined-bytecode-size, 460 bytes in Node 20). The function below is one: a call with a
// never-taken branch several times that long. Entering the real path through it keeps the
// wrappers' own optimized code a check and a call, so a caller inlines them whatever the order
// (measured: every process 1.3–1.4 ns). The real path pays one call (~1 ns of ~250 ns).
import { generatedFunction, type SourceCompiler } from "@cg/schema/codegen";

/** Statements in the branch that never runs: ~7 bytecode bytes each, several times V8's limit. */
const PADDING_STATEMENTS = 512;

/**
 * A function that calls `target` with the same arguments and that V8's optimizing compiler does not
 * inline. Where code generation is forbidden, `target` itself.
 */
export function outOfLine<T extends (...args: never[]) => unknown>(target: T, compile?: SourceCompiler): T {
  const parameters = Array.from({ length: target.length }, (_, index) => `a${index}`).join(", ");
  let padding = "";
  for (let index = 0; index < PADDING_STATEMENTS; index++) padding += `never[${index}] = a0;\n`;
  const body = `return function (${parameters}) {\nif (a0 === NEVER) {\nconst never = [];\n${padding}return never;\n}\nreturn target(${parameters});\n};\n`;
  return generatedFunction<T>({ NEVER: Symbol("never passed"), target }, body, compile) ?? target;
}
