/**
 * Replaces methods on live objects and puts back exactly what was there before: an own property is
 * restored with its original descriptor, an inherited method by deleting the shadowing property.
 */
export class PatchSet {
  readonly #restores: Array<() => void> = [];

  replace<T extends object, K extends keyof T & string>(target: T, key: K, replacement: T[K]): void {
    const ownDescriptor = Object.getOwnPropertyDescriptor(target, key);
    Object.defineProperty(target, key, {
      value: replacement,
      configurable: true,
      writable: true,
      enumerable: false,
    });
    this.#restores.push(() => {
      if (ownDescriptor === undefined) delete target[key];
      else Object.defineProperty(target, key, ownDescriptor);
    });
  }

  /** Restores every patch, newest first; keeps going if one restore fails and rethrows the first. */
  restoreAll(): void {
    let firstError: unknown;
    let failed = false;
    while (this.#restores.length > 0) {
      const restore = this.#restores.pop();
      try {
        restore?.();
      } catch (error) {
        if (!failed) firstError = error;
        failed = true;
      }
    }
    if (failed) throw firstError;
  }
}
