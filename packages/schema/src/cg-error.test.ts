import { describe, expect, expectTypeOf, it } from "vitest";
import { brandCheck, CgError, type CgErrorOptions, cgErrorWithDetails } from "./cg-error.js";

interface ExampleErrorOptions extends CgErrorOptions {
  field: string;
  line?: number | undefined;
}

class ExampleError extends cgErrorWithDetails<ExampleErrorOptions>() {
  override readonly name = "ExampleError";
  static override isInstance = brandCheck<ExampleError>("ExampleError");
}

describe("cgErrorWithDetails", () => {
  it("keeps every detail field of the options as a property, beside message and cause", () => {
    const cause = new Error("disk full");
    const error = new ExampleError({ message: "bad field", cause, field: "shape[1]", line: 7 });
    expect(error.message).toBe("bad field");
    expect(error.cause).toBe(cause);
    expect(error.field).toBe("shape[1]");
    expect(error.line).toBe(7);
    expect(error.name).toBe("ExampleError");
    expect(Object.keys(error)).toEqual(expect.arrayContaining(["field", "line"]));
    expect(Object.hasOwn(error, "message")).toBe(true);
    expect(Object.keys(error)).not.toContain("cause");
    expect(String(error)).toBe("ExampleError: bad field");
  });

  it("reads a detail left out as undefined and has no cause unless one is given", () => {
    const error = new ExampleError({ message: "m", field: "f" });
    expect(error.line).toBeUndefined();
    expect("cause" in error).toBe(false);
  });

  it("is an Error, a CgError and its own class, checked by brand as well", () => {
    const error = new ExampleError({ message: "m", field: "f" });
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(CgError);
    expect(error).toBeInstanceOf(ExampleError);
    expect(CgError.isInstance(error)).toBe(true);
    expect(ExampleError.isInstance(error)).toBe(true);
    expect(ExampleError.isInstance(new CgError({ message: "m" }))).toBe(false);
    expect(ExampleError.isInstance(new Error("m"))).toBe(false);
  });

  it("types each detail as a read-only property, an optional one as possibly undefined", () => {
    const error = new ExampleError({ message: "m", field: "f" });
    expectTypeOf(error.field).toEqualTypeOf<string>();
    expectTypeOf(error.line).toEqualTypeOf<number | undefined>();
    // @ts-expect-error details are read-only
    error.field = "other";
    // @ts-expect-error the options need every required detail
    new ExampleError({ message: "m" });
  });
});
