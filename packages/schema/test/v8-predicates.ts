// V8's own predicates for tests that hold how V8 represents a value (natives syntax, enabled here).
import { setFlagsFromString } from "node:v8";

setFlagsFromString("--allow-natives-syntax");

/** Whether V8 holds `value` as a small integer (unboxed). */
export const isSmallInteger = new Function("value", "return %IsSmi(value)") as (value: unknown) => boolean;

/** Whether V8 holds `array`'s elements as small integers (the kind an empty literal starts as). */
export const hasSmallIntegerElements = new Function("array", "return %HasSmiElements(array)") as (
  array: unknown[],
) => boolean;
