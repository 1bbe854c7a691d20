import { AsyncLocalStorage } from "node:async_hooks";
import type { SpanContextStore } from "../span-context.js";

/** A span context that follows `await`, timers and promise chains (Node's AsyncLocalStorage). */
export function createAsyncSpanContext<T>(): SpanContextStore<T> {
  const storage = new AsyncLocalStorage<T>();
  return {
    get: () => storage.getStore(),
    run: <R>(value: T, fn: () => R): R => storage.run(value, fn),
  };
}
