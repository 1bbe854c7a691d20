import type { SourceCompiler } from "@cg/schema/codegen";
import { describe, expect, it } from "vitest";
import { outOfLine } from "./out-of-line.js";

describe("outOfLine", () => {
  it("calls the target with the same arguments and returns its result", () => {
    const calls: unknown[][] = [];
    const target = (session: object, name: string, measured: boolean, step: string | undefined) => {
      calls.push([session, name, measured, step]);
      return `${name}:${measured}:${step}`;
    };
    const session = {};
    const wrapped = outOfLine(target);
    expect(wrapped).not.toBe(target);
    expect(wrapped(session, "layer", true, undefined)).toBe("layer:true:undefined");
    expect(calls).toEqual([[session, "layer", true, undefined]]);
    // Long enough that V8 will not inline it (its limit is 460 bytecode bytes).
    expect(wrapped.toString().length).toBeGreaterThan(4 * 460);
    const thrown = new Error("from the target");
    expect(() =>
      outOfLine((_session: object) => {
        throw thrown;
      })(session),
    ).toThrow(thrown);
  });

  it("is the target itself where code generation is forbidden", () => {
    const forbidden: SourceCompiler = () => {
      throw new EvalError("Code generation from strings disallowed for this context");
    };
    const target = (session: object) => session;
    expect(outOfLine(target, forbidden)).toBe(target);
  });
});
