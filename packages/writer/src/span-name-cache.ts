import { jsonString } from "./serialize/json-parts.js";

const NAME_CACHE_LIMIT = 4096;

/** Span names repeat (layers, steps): their JSON text is built once and reused (bounded). */
export class SpanNameCache {
  readonly #json = new Map<string, string>();

  /** The JSON string literal of `name`; throws WriterInputError (`name`) for a non-string. */
  json(name: string): string {
    let json = typeof name === "string" ? this.#json.get(name) : undefined;
    if (json === undefined) {
      json = jsonString(name, "name");
      if (this.#json.size >= NAME_CACHE_LIMIT) this.#json.clear();
      this.#json.set(name, json);
    }
    return json;
  }
}
