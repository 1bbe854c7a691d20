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
