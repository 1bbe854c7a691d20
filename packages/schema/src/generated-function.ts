// Straight-line code generated from the layout table at module load, the way ajv and
// fast-json-stringify compile their validators and serializers: a measured 1.5x faster than the
// same work done by closures looping over the table, and as fast as code written by hand per kind.
// Only the fast tiers are built this way, and each of them is an optimisation that may decline any
// input: where code generation is forbidden (a browser page whose Content Security Policy has no
// 'unsafe-eval'), `generatedFunction` returns undefined and the caller's tier declines every line,
// so the always-available tiers produce the same result, more slowly.

/** Builds functions from source text; the default is the Function constructor. */
export type SourceCompiler = (parameters: readonly string[], body: string) => (...args: never[]) => unknown;

const functionConstructor: SourceCompiler = (parameters, body) =>
  // spread-ok: one parameter per binding of a generator, a few dozen at most
  new Function(...parameters, body) as (...args: never[]) => unknown;

/**
 * Compiles `body` as a function of `bindings`' names, calls it with their values and returns the
 * result; undefined where the environment forbids code generation (an EvalError). Any other error
 * is a fault of the generator and is thrown.
 */
export function generatedFunction<T>(
  bindings: Readonly<Record<string, unknown>>,
  body: string,
  compile: SourceCompiler = functionConstructor,
): T | undefined {
  const names = Object.keys(bindings);
  let factory: (...args: never[]) => unknown;
  try {
    factory = compile(names, body);
  } catch (error) {
    if (error instanceof EvalError) return undefined;
    throw error;
  }
  // spread-ok: one value per binding, as above
  return factory(...(names.map((name) => bindings[name]) as never[])) as T;
}

/**
 * A fast tier compiled from `body` as `generatedFunction` does; where code generation is forbidden,
 * a tier that declines every line (returns undefined), so that the always-available tiers decide.
 */
export function generatedTier<Tier extends (...args: never[]) => unknown>(
  bindings: Readonly<Record<string, unknown>>,
  body: string,
  compile?: SourceCompiler,
): Tier {
  return generatedFunction<Tier>(bindings, body, compile) ?? (declineEveryLine as Tier);
}

function declineEveryLine(): undefined {
  return undefined;
}

/** A JavaScript string literal of `text` (JSON strings are valid JavaScript since ES2019). */
export function sourceString(text: string): string {
  return JSON.stringify(text);
}

/** Collects the constants a generated function refers to (`C[0]`, `C[1]`, ...). */
export class SourceConstants {
  readonly values: unknown[] = [];
  /** The expression naming `value` in the generated source. */
  ref(value: unknown): string {
    let index = this.values.indexOf(value);
    if (index === -1) index = this.values.push(value) - 1;
    return `C[${index}]`;
  }
}
