import { freemem } from "node:os";
import { openProbe } from "@cg/trace/cuda";
import type { TraceRecorder } from "@cg/writer";

/** What the demo could observe of device memory. */
export interface DeviceMemoryStatus {
  /** NVML devices sampled, e.g. `["cuda:0"]`; empty without a GPU. */
  gpuDevices: string[];
  /** Why there is no GPU sampling (library missing, no device, ...), when there is none. */
  gpuUnavailableReason?: string;
}

/**
 * Records device-memory checkpoints: always the host process as device `cpu` (used = resident set
 * size, free = memory the OS reports free), and every NVIDIA GPU through NVML when one is present.
 * NVML samples are taken through the session (no explicit timestamp), so they share its clock.
 */
/**
 * One short clause for the demo's output. The usual case, a machine without the NVIDIA driver,
 * needs no detail; other failures keep the first sentence of the probe's message.
 */
export function shortReason(reason: string, message: string): string {
  if (reason === "library-not-found")
    return "no NVIDIA driver found; set CG_NVML_LIBRARY to use another libnvidia-ml";
  const first = message.split(/(?<=\.)\s|;\s|\n/)[0] ?? message;
  return first.length > 120 ? `${first.slice(0, 119)}…` : first;
}

export class DeviceMemoryCheckpoints {
  readonly status: DeviceMemoryStatus;
  readonly #probe: ReturnType<typeof openProbe> | undefined;

  constructor(useGpu: boolean) {
    if (!useGpu) {
      this.status = { gpuDevices: [], gpuUnavailableReason: "GPU sampling disabled (--no-gpu)" };
      return;
    }
    const opened = openProbe();
    this.#probe = opened;
    this.status = opened.ok
      ? { gpuDevices: opened.probe.devices.map((device) => device.label) }
      : { gpuDevices: [], gpuUnavailableReason: shortReason(opened.reason, opened.error.message) };
  }

  /** One checkpoint of the host (device `cpu`) and of every GPU. */
  record(trace: TraceRecorder): void {
    if (!trace.isRecording) return;
    trace.recordDeviceMemory("cpu", process.memoryUsage().rss, freemem());
    this.recordGpus(trace);
  }

  /** One NVML checkpoint per GPU (`cuda:<index>`); nothing without a GPU. */
  recordGpus(trace: TraceRecorder): void {
    if (!trace.isRecording) return;
    if (this.#probe?.ok === true) {
      this.#probe.probe.recordInto({
        recordDeviceMemory: (device, usedBytes, freeBytes) =>
          trace.recordDeviceMemory(device, usedBytes, freeBytes),
      });
    }
  }

  close(): void {
    if (this.#probe?.ok === true) this.#probe.probe.close();
  }
}
