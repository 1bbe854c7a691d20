import { U64_MAX } from "@cg/schema/core";
import { OrtProfileError } from "./ort-profile-error.js";
import type {
  OrtAllocatorFigures,
  OrtInterval,
  OrtNodeEvent,
  OrtProfileRun,
  OrtTypeShape,
} from "./ort-profile-run.js";
import { rawNumberField } from "./raw-integer-field.js";

export interface ScanOptions {
  /** One-based run to keep; default the last run of the profile. */
  run?: number | undefined;
  /** Named in errors. */
  file?: string | undefined;
}

const KERNEL_SUFFIX = "_kernel_time";

interface PendingBadLine {
  readonly line: number;
  readonly reason: string;
}

type JsonObject = Record<string, unknown>;

/**
 * Reads an ONNX Runtime profile line by line (the profiler writes `[`, one event per line, `]`) and
 * keeps only the selected run: memory stays at one run's node events however long the profile is.
 * Feed every line with `push`, then call `finish`.
 */
export class OrtProfileScanner {
  readonly #options: ScanOptions;
  #lineNumber = 0;
  #opened = false;
  #closed = false;
  #lastEventLine = 0;
  #pendingBad: PendingBadLine | undefined;
  #pendingNodes: OrtNodeEvent[] = [];
  #pendingExecutor: (OrtInterval & { name: string }) | undefined;
  #text = "";
  #runCount = 0;
  #selected: Omit<OrtProfileRun, "runCount" | "unassignedNodes"> | undefined;
  #sawOrtEvent = false;

  constructor(options: ScanOptions = {}) {
    const run = options.run;
    if (run !== undefined && (!Number.isSafeInteger(run) || run < 1)) {
      throw new OrtProfileError({
        code: "invalid_option",
        message: `run must be a whole number from 1 up, got ${String(run)}`,
        field: "run",
      });
    }
    this.#options = options;
  }

  push(rawLine: string): void {
    this.#lineNumber++;
    let text = rawLine.trim();
    if (text === "") return;
    if (!this.#opened) {
      this.#open(text);
      text = text.slice(1).trim();
      if (text === "") return;
    }
    if (this.#pendingBad !== undefined) this.#failInvalid(this.#pendingBad.line, this.#pendingBad.reason);
    if (this.#closed) this.#failInvalid(this.#lineNumber, "content after the closing `]` of the event array");
    if (text === "]") {
      this.#closed = true;
      return;
    }
    if (text.endsWith("]") && !text.endsWith("]]")) {
      text = text.slice(0, -1).trimEnd();
      this.#closed = true;
    }
    if (text.endsWith(",")) text = text.slice(0, -1);
    let event: unknown;
    try {
      event = JSON.parse(text);
    } catch (error) {
      // Only a later line can tell a cut-off last line (truncated file) from a broken one.
      this.#closed = false;
      this.#pendingBad = { line: this.#lineNumber, reason: `not a JSON event (${(error as Error).message})` };
      return;
    }
    if (typeof event !== "object" || event === null || Array.isArray(event)) {
      this.#failInvalid(this.#lineNumber, "an event must be a JSON object");
    }
    this.#lastEventLine = this.#lineNumber;
    this.#text = text;
    this.#accept(event as JsonObject);
  }

  finish(): OrtProfileRun {
    const file = this.#fileLabel();
    if (!this.#opened) {
      throw new OrtProfileError({
        code: "truncated",
        file: this.#options.file,
        message: `${file} is empty: an ONNX Runtime profile is a JSON array of events`,
      });
    }
    if (this.#pendingBad !== undefined || !this.#closed) {
      const at = this.#pendingBad?.line ?? this.#lineNumber;
      const last =
        this.#lastEventLine === 0
          ? "no complete event"
          : `the last complete event is on line ${this.#lastEventLine}`;
      throw new OrtProfileError({
        code: "truncated",
        file: this.#options.file,
        line: at,
        message: `${file} line ${at}: the profile is truncated (the event array is never closed with \`]\`; ${last}). ONNX Runtime writes the file only at endProfiling(); was the process stopped before it?`,
      });
    }
    if (!this.#sawOrtEvent || this.#runCount === 0) {
      throw new OrtProfileError({
        code: this.#sawOrtEvent ? "run_not_found" : "not_ort_profile",
        file: this.#options.file,
        message: this.#sawOrtEvent
          ? `${file}: the profile holds no \`model_run\` event: the session was profiled but never ran`
          : `${file}: not an ONNX Runtime profile: a JSON array of trace events, but none with cat \`Session\` or \`Node\` and no \`model_run\``,
      });
    }
    if (this.#selected === undefined) {
      throw new OrtProfileError({
        code: "run_not_found",
        file: this.#options.file,
        field: "run",
        message: `${file}: run ${this.#options.run} requested, but the profile holds ${this.#runCount} run${this.#runCount === 1 ? "" : "s"}`,
      });
    }
    return { ...this.#selected, runCount: this.#runCount, unassignedNodes: this.#pendingNodes.length };
  }

  #open(text: string): void {
    this.#opened = true;
    if (text.startsWith("[")) return;
    const file = this.#fileLabel();
    if (text.startsWith("{")) {
      throw new OrtProfileError({
        code: "not_ort_profile",
        file: this.#options.file,
        line: this.#lineNumber,
        message: `${file} line ${this.#lineNumber}: not an ONNX Runtime profile: the file is a JSON object, while ONNX Runtime writes a JSON array of events (a Chrome/Perfetto JSON trace or a PyTorch Kineto trace is an object with "traceEvents"; convert those with their own tools)`,
      });
    }
    throw new OrtProfileError({
      code: "not_ort_profile",
      file: this.#options.file,
      line: this.#lineNumber,
      message: `${file} line ${this.#lineNumber}: not an ONNX Runtime profile: it does not start with \`[\` (a binary Perfetto trace, or not JSON at all)`,
    });
  }

  #accept(event: JsonObject): void {
    const category = event.cat;
    if (category !== "Session" && category !== "Node") return;
    this.#sawOrtEvent = true;
    const name = this.#string(event, "name");
    const startUs = this.#micros(event, "ts");
    const durationUs = this.#micros(event, "dur");
    if (category === "Node") {
      if (!name.endsWith(KERNEL_SUFFIX)) return; // fence events of older versions carry no kernel time
      this.#pendingNodes.push(this.#node(event, name.slice(0, -KERNEL_SUFFIX.length), startUs, durationUs));
      return;
    }
    const line = this.#lineNumber;
    if (name === "model_run") {
      this.#endRun(event, { startUs, durationUs, line });
    } else if (name.endsWith("Executor::Execute")) {
      this.#pendingExecutor = { name, startUs, durationUs, line };
    }
  }

  #endRun(event: JsonObject, modelRun: OrtInterval): void {
    this.#runCount++;
    const wanted = this.#options.run;
    if (wanted === undefined || wanted === this.#runCount) {
      const end = modelRun.startUs + modelRun.durationUs;
      const inWindow = (node: OrtNodeEvent) => node.startUs >= modelRun.startUs && node.startUs <= end;
      const executor = this.#pendingExecutor;
      this.#selected = {
        index: this.#runCount,
        modelRun,
        executor:
          executor !== undefined && executor.startUs >= modelRun.startUs && executor.startUs <= end
            ? executor
            : undefined,
        nodes: this.#pendingNodes.filter(inWindow),
        outOfWindow: this.#pendingNodes.filter((node) => !inWindow(node)),
        pid: typeof event.pid === "number" ? event.pid : undefined,
      };
    }
    this.#pendingNodes = [];
    this.#pendingExecutor = undefined;
  }

  #node(event: JsonObject, nodeName: string, startUs: bigint, durationUs: bigint): OrtNodeEvent {
    const args = event.args;
    if (typeof args !== "object" || args === null || Array.isArray(args))
      this.#failField("args", "must be an object");
    const fields = args as JsonObject;
    const bytesInUse = this.#optionalCount(fields, "mem_bytes_in_use");
    const inUseDelta = this.#optionalSigned(fields, "mem_in_use_delta");
    const allocator: OrtAllocatorFigures | undefined =
      bytesInUse === undefined
        ? undefined
        : {
            bytesInUse,
            inUseDelta: inUseDelta ?? 0,
            arenaHeld: this.#optionalCount(fields, "mem_arena_held"),
            arenaHeldDelta: this.#optionalSigned(fields, "mem_arena_held_delta"),
            inUsePeak: this.#optionalCount(fields, "mem_in_use_peak"),
          };
    return {
      nodeName,
      opType: this.#string(fields, "op_name", "args.op_name"),
      provider: typeof fields.provider === "string" ? fields.provider : "CPUExecutionProvider",
      nodeIndex: this.#optionalCount(fields, "node_index"),
      startUs,
      durationUs,
      inputs: this.#typeShapes(fields, "input_type_shape"),
      outputs: this.#typeShapes(fields, "output_type_shape"),
      outputBytes: this.#optionalCount(fields, "output_size"),
      activationBytes: this.#optionalCount(fields, "activation_size"),
      parameterBytes: this.#optionalCount(fields, "parameter_size"),
      allocator,
      line: this.#lineNumber,
    };
  }

  #typeShapes(fields: JsonObject, key: string): OrtTypeShape[] {
    const value = fields[key];
    if (value === undefined) return [];
    if (!Array.isArray(value)) this.#failField(`args.${key}`, "must be an array");
    const result: OrtTypeShape[] = [];
    for (const [index, entry] of (value as unknown[]).entries()) {
      const keys = typeof entry === "object" && entry !== null ? Object.keys(entry) : [];
      const ortType = keys[0];
      const shape = ortType === undefined ? undefined : (entry as JsonObject)[ortType];
      if (keys.length !== 1 || ortType === undefined || !Array.isArray(shape)) {
        this.#failField(
          `args.${key}[${index}]`,
          'must be an object with one type name mapped to a shape, e.g. {"float":[4,16]}',
        );
      }
      const dims = shape as unknown[];
      for (const [axis, dim] of dims.entries()) {
        if (typeof dim !== "number" || !Number.isSafeInteger(dim) || dim < 0) {
          this.#failField(`args.${key}[${index}].${ortType}[${axis}]`, "must be a whole number ≥ 0");
        }
      }
      result.push({ ortType, shape: dims as number[] });
    }
    return result;
  }

  #string(fields: JsonObject, key: string, label = key): string {
    const value = fields[key];
    if (typeof value !== "string") this.#failField(label, "must be a string");
    return value as string;
  }

  // Whole microseconds, exact for every u64: JSON.parse rounds integers above 2^53, so those are
  // read again from the digits of the line.
  #micros(fields: JsonObject, key: string): bigint {
    const value = fields[key];
    if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
    const digits = typeof value === "number" ? rawNumberField(this.#text, key) : undefined;
    if (digits === undefined || !/^\d+$/.test(digits)) {
      this.#failField(key, "must be a whole number of microseconds ≥ 0");
    }
    const micros = BigInt(digits as string);
    if (micros > U64_MAX) this.#failField(key, `must fit in 64 bits (at most ${U64_MAX} µs), got ${digits}`);
    return micros;
  }

  // ONNX Runtime writes its counters as decimal strings ("1856").
  #optionalCount(fields: JsonObject, key: string): number | undefined {
    const value = this.#optionalSigned(fields, key);
    if (value !== undefined && value < 0) this.#failField(`args.${key}`, "must not be negative");
    return value;
  }

  #optionalSigned(fields: JsonObject, key: string): number | undefined {
    const value = fields[key];
    if (value === undefined) return undefined;
    const number = typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : value;
    if (typeof number !== "number" || !Number.isSafeInteger(number)) {
      this.#failField(`args.${key}`, "must be a whole number (ONNX Runtime writes it as a decimal string)");
    }
    return number as number;
  }

  #failField(field: string, reason: string): never {
    throw new OrtProfileError({
      code: "invalid_event",
      file: this.#options.file,
      line: this.#lineNumber,
      field,
      message: `${this.#fileLabel()} line ${this.#lineNumber}: field \`${field}\` ${reason}`,
    });
  }

  #failInvalid(line: number, reason: string): never {
    throw new OrtProfileError({
      code: "invalid_event",
      file: this.#options.file,
      line,
      message: `${this.#fileLabel()} line ${line}: ${reason}`,
    });
  }

  #fileLabel(): string {
    return this.#options.file ?? "the profile";
  }
}
