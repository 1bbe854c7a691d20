// The canonical-bytes tier's event readers, generated from the layout table (see
// generated-function.ts). Per kind, one straight-line function reads the members in the table's
// order with the cursor's token readers — `,"key":` literals compared a word at a time, optional
// keys looked for, required ones expected — and builds the event as event-literal-source.ts
// does, keys in line order as JSON.parse would have created them. A kind with a value the
// cursor cannot read (`meta`'s string map) gets no reader: its lines go to the text tiers.
import * as cursor from "./canonical-cursor.js";
import type { EventLayout, EventLayoutTable, FieldLayout, WireType } from "./event-layouts.js";
import { eventReturnSource } from "./event-literal-source.js";
import type { TraceEvent } from "./events.js";
import { generatedTier, type SourceCompiler, SourceConstants, sourceString } from "./generated-function.js";

/** Reads the event at the cursor (just after nothing: it matches `{"kind":"` itself). */
export type CanonicalEventReader = () => TraceEvent | undefined;

/** The cursor call that reads each wire type; types without one make their kind unreadable here. */
const READ_CALLS: Partial<Record<WireType, string>> = {
  string: "readString()",
  u64: "readU64()",
  boolean: "readBoolean()",
  f64: "readFloat()",
  strings: "readStrings()",
  shape: "readShape()",
};

/**
 * The source of a reader of `[]` or `[e,e,...]` whose elements `readElement` reads. Built as
 * literals of their exact length where short (as JSON.parse builds them), not grown by push, which
 * would give each a backing store of 17 elements to collect. One reader per element type, each
 * with literals of its own: V8 keeps an elements kind per literal, and one reader shared by shapes
 * (small integers) and string lists left every literal at the generic kind and its calls to the
 * element reader polymorphic (measured: a first read ~8 % less CPU, 5 interleaved rounds).
 */
function listReaderSource(name: string, readElement: string): string {
  return `function ${name}() {
if (listIsEmpty()) return [];
const first = ${readElement};
if (!listContinues()) return [first];
const second = ${readElement};
if (!listContinues()) return [first, second];
const third = ${readElement};
if (!listContinues()) return [first, second, third];
const fourth = ${readElement};
if (!listContinues()) return [first, second, third, fourth];
const values = [first, second, third, fourth];
do values.push(${readElement});
while (isOk() && listContinues());
return values;
}
`;
}

/** Printable ASCII without a quote or a backslash: text whose JSON string is its bytes between quotes. */
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** The constants and key tests of a generated reader (shared with canonical-column-reader.ts). */
export class ReaderSource {
  readonly constants = new SourceConstants();
  readonly #literals = new Map<string, string>();

  literal(text: string): string {
    let ref = this.#literals.get(text);
    if (ref === undefined) {
      ref = this.constants.ref(cursor.ascii(text));
      this.#literals.set(text, ref);
    }
    return ref;
  }

  /** An expression true when `text` is at the cursor, its words compared as constants. */
  wordsMatch(text: string): string {
    const { length, words, lastMask } = cursor.ascii(text);
    // Rounded up to whole words: the words read past the literal's end are masked, not skipped.
    const tests = [`keyFits(${(length + 3) & ~3})`];
    words.forEach((word, index) => {
      const read = `keyWord(${index * 4})`;
      tests.push(
        index < words.length - 1 || lastMask === -1
          ? `${read} === ${word}`
          : `(${read} & ${lastMask}) === ${word}`,
      );
    });
    return tests.join(" && ");
  }

  /** An expression that steps over the required key literal `text`; false when the line deviated. */
  expectKey(text: string): string {
    return `(${this.wordsMatch(text)} ? stepOver(${text.length}) : expect(${this.literal(text)}))`;
  }

  /**
   * An expression that steps over the optional key literal `text` when it is there. The fast test
   * goes to `optionalMember`, whose own search for a key that failed it is run by every kind's
   * absent keys: a key that is absent only on a file's first lines (the root span's `parent_id`)
   * then finds type feedback there, not a branch V8 never saw taken.
   */
  optionalKey(text: string): string {
    return `optionalMember(${this.wordsMatch(text)}, ${this.literal(text)})`;
  }

  readCall(field: FieldLayout): string | undefined {
    if (field.type === "enum") {
      const variants = field.variants ?? [];
      return this.enumMatch(variants, `readEnum(${this.constants.ref(variants)})`, (_, quoted) => quoted);
    }
    return READ_CALLS[field.type];
  }

  /**
   * An expression reading an enum value: each variant's quoted text compared as words first (most
   * values are one of a few), giving `result(index, quoted)`; `otherwise` (the string cache and
   * the variant search) only for a value none of them matched.
   */
  enumMatch(
    variants: readonly string[],
    otherwise: string,
    result: (index: number, quoted: string) => string,
  ): string {
    let read = otherwise;
    for (let index = variants.length - 1; index >= 0; index--) {
      const variant = variants[index] as string;
      // Only a value the string reader would take as it is (printable ASCII, no escape) is a literal.
      if (!PLAIN_ASCII.test(variant)) continue;
      const quoted = sourceString(variant);
      read = `(${this.wordsMatch(quoted)} ? (stepOver(${quoted.length}), ${result(index, quoted)}) : ${read})`;
    }
    return read;
  }
}

/** The function body reading one kind after its head literal, or undefined when it has an unreadable type. */
function kindReaderSource(
  source: ReaderSource,
  layout: EventLayout,
  name: string,
  firstKeyInHead: boolean,
): string | undefined {
  let body = `function ${name}() {\n`;
  for (const [index, field] of layout.fields.entries()) {
    const read = source.readCall(field);
    if (read === undefined) return undefined;
    const member = `,${sourceString(field.key)}:`;
    if (index === 0 && firstKeyInHead) {
      body += `const v0 = ${read};\n`;
    } else if (field.presence === "optional") {
      body += `const h${index} = ${source.optionalKey(member)};\nconst v${index} = h${index} ? ${read} : undefined;\n`;
    } else {
      body += `if (!${source.expectKey(member)}) return undefined;\nconst v${index} = ${read};\n`;
    }
  }
  body += eventReturnSource(layout);
  return `${body}}\n`;
}

/** The source of a reader for every kind of `layouts` it can read, dispatched on the kind's first letter. */
function eventReaderSource(source: ReaderSource, layouts: EventLayoutTable): string {
  let body = listReaderSource("readShape", "readU64()") + listReaderSource("readStrings", "readString()");
  const byFirstCode = new Map<number, { head: string; name: string }[]>();
  Object.values(layouts).forEach((layout, kindIndex) => {
    const first = layout.fields[0];
    // `{"kind":"` is matched first; the head then checks the rest of the kind and, when the first
    // key is required, that key too: one literal compare for both.
    const firstKeyInHead = first !== undefined && first.presence !== "optional";
    const name = `read${kindIndex}`;
    const reader = kindReaderSource(source, layout, name, firstKeyInHead);
    if (reader === undefined) return;
    body += reader;
    const head = source.optionalKey(
      firstKeyInHead ? `${layout.kind}",${sourceString(first.key)}:` : `${layout.kind}"`,
    );
    const code = layout.kind.charCodeAt(0);
    byFirstCode.set(code, [...(byFirstCode.get(code) ?? []), { head, name }]);
  });
  body += `return function readEvent() {\nif (!${source.optionalKey('{"kind":"')}) return undefined;\nswitch (peekByte()) {\n`;
  for (const [code, kinds] of byFirstCode) {
    body += `case ${code}:\n`;
    // A head that matches no kind declines the line at once (a `meta` line, another revision's
    // kind): looked for as optional keys are, a path every file takes, never a reader run on it.
    for (const { head, name } of kinds) body += `if (${head}) return ${name}();\n`;
    body += "return undefined;\n";
  }
  return `${body}default:\nreturn undefined;\n}\n};\n`;
}

/**
 * The canonical-bytes event reader of `layouts`; where code generation is forbidden, a reader that
 * declines every line (the text tiers then decode them).
 */
export function compileCanonicalEventReader(
  layouts: EventLayoutTable,
  compile?: SourceCompiler,
): CanonicalEventReader {
  const source = new ReaderSource();
  const body = eventReaderSource(source, layouts);
  // The generated code calls the cursor's readers by their exported names.
  const bindings = { ...cursor, C: source.constants.values };
  return generatedTier<CanonicalEventReader>(bindings, body, compile);
}
