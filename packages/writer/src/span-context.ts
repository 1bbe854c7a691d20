/**
 * Where a session keeps "the span this code runs in" for `session.span(...)`. Node sessions use an
 * AsyncLocalStorage-backed store (see `node/async-span-context.ts`), which carries the span through
 * `await`; the browser-safe default below only covers the synchronous part of the callback.
 */
export interface SpanContextStore<T> {
  /** The value of the innermost `run` this code executes in, or undefined. */
  get(): T | undefined;
  /** Runs `fn` with `value` as the current value. */
  run<R>(value: T, fn: () => R): R;
}

/** A store for synchronous code only: the value is restored when `fn` returns or throws. */
export function createSyncSpanContext<T>(): SpanContextStore<T> {
  let current: T | undefined;
  return {
    get: () => current,
    run<R>(value: T, fn: () => R): R {
      const previous = current;
      current = value;
      try {
        return fn();
      } finally {
        current = previous;
      }
    },
  };
}
