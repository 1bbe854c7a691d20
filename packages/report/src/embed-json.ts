/**
 * JSON text that is safe inside `<script type="application/json">`: every `<`, `>` and `&` is
 * written as a `\uXXXX` escape, so the data can never close its script element or open a comment,
 * and U+2028/U+2029 are escaped too so the text also stays valid as a JavaScript literal.
 * `JSON.parse` reads the escapes back to the same strings.
 */
export function embedJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (character) => {
    return `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}
