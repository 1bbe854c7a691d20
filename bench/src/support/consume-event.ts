// What "consuming every field of every event" means for the reader benchmarks: each field of each
// of the nine kinds is read by name (as a program using the events would) and folded into a 32-bit
// checksum. Strings contribute their length and last code unit (reading content, not only a
// header), numbers their value, arrays every element, tags every key and value. Fields with a wire
// default read through `?? default`, so raw `JSON.parse` objects and validated events give the same
// sum. The sum is additive modulo 2^32, so a columnar reader can add the same terms in any order.
//
// Checksums of the contenders of one comparison must agree, or the bench refuses to report.

/** One string's term: its length and last code unit. */
export function stringTerm(value: string): number {
  const length = value.length;
  return length === 0 ? 0 : (length * 31 + value.charCodeAt(length - 1)) | 0;
}

/** One optional string's term (absent or null: 0). */
export function optionalStringTerm(value: string | null | undefined): number {
  return value == null ? 0 : stringTerm(value);
}

/** One number's term: exact for every double (times 1024 only shifts the exponent), then 32 bits. */
export function numberTerm(value: number | bigint): number {
  return (Number(value) * 1024) | 0;
}

/** One optional number's term (absent or null: 0). */
export function optionalNumberTerm(value: number | bigint | null | undefined): number {
  return value == null ? 0 : numberTerm(value);
}

export function booleanTerm(value: boolean | undefined): number {
  return value === true ? 1 : 0;
}

export function stringsTerm(values: readonly string[] | undefined): number {
  if (values === undefined) return 0;
  let sum = values.length;
  for (let index = 0; index < values.length; index++) sum = (sum + stringTerm(values[index] as string)) | 0;
  return sum;
}

export function numbersTerm(values: readonly (number | bigint)[] | undefined): number {
  if (values === undefined) return 0;
  let sum = values.length;
  for (let index = 0; index < values.length; index++) sum = (sum + numberTerm(values[index] as number)) | 0;
  return sum;
}

export function tagsTerm(tags: Readonly<Record<string, string>>): number {
  let sum = 0;
  for (const key in tags) sum = (sum + stringTerm(key) + stringTerm(tags[key] as string)) | 0;
  return sum;
}

/** Any event-shaped value: the validated `TraceEvent` or a bare `JSON.parse` result. */
// biome-ignore lint/suspicious/noExplicitAny: both typed events and raw parse results are consumed.
type EventLike = any;

/** The checksum of every field of one event. */
export function eventTerm(event: EventLike): number {
  const kind: string = event.kind;
  let sum = stringTerm(kind);
  switch (kind) {
    case "meta":
      sum += stringTerm(event.schema) + stringTerm(event.run_id) + stringTerm(event.correlation_id);
      sum += stringTerm(event.entrypoint) + stringTerm(event.phase) + stringTerm(event.timestamp);
      sum += numberTerm(event.capture_step) + numberTerm(event.warmup_steps) + stringTerm(event.device);
      sum += booleanTerm(event.measured_region_device_synchronized ?? false) + stringTerm(event.timing_mode);
      sum += tagsTerm(event.tags) + optionalStringTerm(event.candle_version);
      break;
    case "span_start":
      sum += stringTerm(event.id) + optionalStringTerm(event.parent_id) + stringTerm(event.name);
      sum += numberTerm(event.start_ns) + stringTerm(event.span_kind) + booleanTerm(event.measured ?? false);
      sum += optionalStringTerm(event.step);
      break;
    case "span_end":
      sum += stringTerm(event.id) + numberTerm(event.duration_ns ?? 0);
      break;
    case "op":
      sum += stringTerm(event.span_id) + stringTerm(event.op_name) + stringsTerm(event.inputs ?? []);
      sum += optionalStringTerm(event.output) + numbersTerm(event.shape ?? []) + stringTerm(event.dtype);
      sum += stringTerm(event.device) + numberTerm(event.duration_ns) + numberTerm(event.timestamp_ns ?? 0);
      sum += optionalNumberTerm(event.storage_bytes) + numberTerm(event.input_storage_bytes ?? 0);
      break;
    case "tensor":
      sum += stringTerm(event.span_id) + stringTerm(event.tensor_id) + numbersTerm(event.shape ?? []);
      sum += stringTerm(event.dtype) + stringTerm(event.device) + booleanTerm(event.requires_grad ?? false);
      sum += optionalNumberTerm(event.storage_bytes) + stringTerm(event.category ?? "other");
      break;
    case "memory":
      sum += numberTerm(event.timestamp_ns) + stringTerm(event.tensor_id) + stringTerm(event.span_id);
      sum += optionalStringTerm(event.op_name) + stringTerm(event.device) + numberTerm(event.bytes);
      sum += stringTerm(event.action) + numbersTerm(event.shape ?? []) + stringTerm(event.dtype);
      sum += stringTerm(event.category ?? "other");
      break;
    case "device_memory":
      sum += numberTerm(event.timestamp_ns) + stringTerm(event.device) + numberTerm(event.used_bytes);
      sum += numberTerm(event.free_bytes) + optionalNumberTerm(event.reserved_bytes);
      break;
    case "gradient":
      sum += stringTerm(event.event_id) + stringTerm(event.root) + stringTerm(event.key);
      sum += stringTerm(event.state) + optionalNumberTerm(event.norm);
      break;
    case "edge":
      sum += stringTerm(event.from_span) + stringTerm(event.to_span) + numberTerm(event.duration_ns);
      break;
    default:
      throw new Error(`unknown event kind ${kind}`);
  }
  return sum | 0;
}

/** Running totals of a reader: the checksum and the event count. */
export interface Consumed {
  checksum: number;
  events: number;
}
