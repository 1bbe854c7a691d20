import { describe, expect, it } from "vitest";
import { tfjsStorageBytes, traceDtypeLabel } from "./dtype-label.js";
import { gradientFact } from "./gradient-fact.js";
import { PatchSet } from "./patch-set.js";

describe("gradientFact", () => {
  it("classifies missing, zero, non-finite and present gradients", () => {
    expect(gradientFact(undefined)).toEqual({ state: "missing" });
    expect(gradientFact(new Float32Array([0, -0, 0]))).toEqual({ state: "zero", norm: 0 });
    expect(gradientFact(new Float32Array([1, Number.NaN]))).toEqual({ state: "non_finite" });
    expect(gradientFact(new Float32Array([0, Number.POSITIVE_INFINITY]))).toEqual({ state: "non_finite" });
    expect(gradientFact(new Float32Array([3, 4]))).toEqual({ state: "present", norm: 5 });
  });
});

describe("dtype mapping", () => {
  it("maps tfjs dtypes to trace labels and CPU-backend footprints", () => {
    expect(["float32", "int32", "bool", "complex64", "string"].map(traceDtypeLabel)).toEqual([
      "f32",
      "i32",
      "u8",
      "c64",
      "string",
    ]);
    expect(tfjsStorageBytes(6, "float32")).toBe(24);
    expect(tfjsStorageBytes(6, "int32")).toBe(24);
    expect(tfjsStorageBytes(6, "bool")).toBe(6);
    expect(tfjsStorageBytes(6, "complex64")).toBe(48);
    expect(tfjsStorageBytes(6, "string")).toBe(0);
  });
});

describe("PatchSet", () => {
  it("restores own properties with their descriptors and removes shadows of inherited ones", () => {
    class Base {
      inherited(): string {
        return "base";
      }
    }
    const target = new Base() as Base & { own: () => string };
    Object.defineProperty(target, "own", {
      value: () => "own",
      enumerable: true,
      writable: false,
      configurable: true,
    });
    const before = Object.getOwnPropertyDescriptor(target, "own");
    const patches = new PatchSet();
    patches.replace(target, "inherited", () => "patched");
    patches.replace(target, "own", () => "patched");
    expect(target.inherited()).toBe("patched");
    expect(target.own()).toBe("patched");
    patches.restoreAll();
    expect(Object.hasOwn(target, "inherited")).toBe(false);
    expect(target.inherited()).toBe("base");
    expect(Object.getOwnPropertyDescriptor(target, "own")).toEqual(before);
  });
});
