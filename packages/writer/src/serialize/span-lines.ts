import { integerDigits } from "./integer-digits.js";

// span_start / span_end lines (spec §2.3, §2.4, key order §7.2). Ids are `s<N>` and never need
// escaping; names are escaped by the caller once per span.

/**
 * `{"kind":"span_start",...}` + LF. `parentId` undefined only for the root; `tail` the text after
 * the start time (`spanStartTail`).
 */
export function spanStartLine(
  id: string,
  parentId: string | undefined,
  nameJson: string,
  startNs: number,
  tail: string,
): string {
  return (
    '{"kind":"span_start","id":"' +
    id +
    (parentId === undefined ? '","name":' : '","parent_id":"' + parentId + '","name":') +
    nameJson +
    ',"start_ns":' +
    integerDigits(startNs) +
    tail
  );
}

/** `{"kind":"span_end","id":...,"duration_ns":N}` + LF. */
export function spanEndLine(id: string, durationNs: number): string {
  return '{"kind":"span_end","id":"' + id + '","duration_ns":' + integerDigits(durationNs) + "}\n";
}
