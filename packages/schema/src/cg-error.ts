const CG_ERROR = Symbol.for("cg.error");

export interface CgErrorOptions {
  message: string;
  cause?: unknown;
}

/**
 * Base class of every error thrown by `@cg/*` packages. `CgError.isInstance` (and each subclass's
 * `isInstance`) checks a global symbol brand instead of the prototype chain, so it also works when
 * two copies of a package are installed side by side.
 */
export class CgError extends Error {
  readonly [CG_ERROR] = true;
  /** Stable machine-readable name of the error class, e.g. `TraceParseError`. */
  override readonly name: string = "CgError";

  constructor({ message, cause }: CgErrorOptions) {
    super(message, cause === undefined ? undefined : { cause });
  }

  static isInstance(value: unknown): value is CgError {
    return (
      typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[CG_ERROR] === true
    );
  }
}

/**
 * Builds a brand check for a subclass: `static isInstance = brandCheck<MyError>("MyError")`.
 * It matches by the error's `name`, so it survives duplicate package copies like `CgError.isInstance`.
 */
export function brandCheck<T extends CgError>(name: string): (value: unknown) => value is T {
  return (value: unknown): value is T => CgError.isInstance(value) && value.name === name;
}

/** The detail fields of an error's options (every one but `message` and `cause`), as read-only properties. */
export type CgErrorDetails<Options extends CgErrorOptions> = {
  readonly [Key in Exclude<keyof Options, keyof CgErrorOptions>]: Options[Key];
};

/** A `CgError` class that keeps each detail field of its options as a property of the same name. */
export interface CgErrorWithDetailsClass<Options extends CgErrorOptions> {
  new (options: Options): CgError & CgErrorDetails<Options>;
  readonly prototype: CgError;
  isInstance(value: unknown): value is CgError;
}

class CgErrorWithDetails extends CgError {
  constructor(options: CgErrorOptions) {
    super(options);
    const properties = this as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(options)) {
      if (key !== "message" && key !== "cause") properties[key] = value;
    }
  }
}

/**
 * The base class of an error with detail fields: each field of its options but `message` and `cause`
 * becomes a read-only property of the same name (one left out reads as undefined), so a subclass
 * only names itself:
 * `class MyError extends cgErrorWithDetails<MyErrorOptions>() { override readonly name = "MyError"; … }`.
 */
export function cgErrorWithDetails<Options extends CgErrorOptions>(): CgErrorWithDetailsClass<Options> {
  return CgErrorWithDetails as unknown as CgErrorWithDetailsClass<Options>;
}
