// The sampler thread: opens NVML itself and samples on a fixed schedule, sleeping in Atomics.wait
// so it needs no event loop turns and wakes at once on stop. Readings go to the shared ring.
import { parentPort, workerData } from "node:worker_threads";
import { MonotonicClock } from "@cg/clock";
import { DeviceReader } from "./device-reader.js";
import { NvmlSession } from "./nvml-session.js";
import { SampleRing } from "./sample-ring.js";
import {
  controlSlot,
  type SamplerWorkerData,
  type SamplerWorkerMessage,
  samplerState,
} from "./sampler-protocol.js";
import { threadCpuTimeNs } from "./thread-cpu-time.js";

function post(message: SamplerWorkerMessage): void {
  parentPort?.postMessage(message);
}

function setState(control: Int32Array, state: number): void {
  Atomics.store(control, controlSlot.state, state);
  Atomics.notify(control, controlSlot.state);
}

function run(data: SamplerWorkerData): void {
  const control = new Int32Array(data.controlBuffer);
  const ring = new SampleRing(data.ringBuffer);
  const opened = NvmlSession.open(data.libraryPath);
  if (!opened.ok) {
    const { ok: _ok, ...failure } = opened;
    setState(control, samplerState.failed);
    post({ type: "failed", failure });
    return;
  }
  const session = opened.session;
  const readers: DeviceReader[] = [];
  for (const index of data.deviceIndices) {
    const handle = session.handle(index);
    if (typeof handle !== "bigint") {
      session.close();
      setState(control, samplerState.failed);
      post({ type: "failed", failure: handle });
      return;
    }
    readers.push(new DeviceReader(session.binding, index, handle, data.processId, data.processMemory));
  }
  const clock = MonotonicClock.fromOrigin(data.clockOrigin);
  const intervalNs = BigInt(Math.max(1, Math.round(data.intervalMs * 1e6)));
  const cpuStart = threadCpuTimeNs();
  const wallStart = clock.nowBigInt();
  let previousRound: bigint | undefined;
  const round = (): void => {
    const roundStart = clock.nowBigInt();
    for (const reader of readers) {
      const result = reader.read();
      if (result !== 0) {
        ring.recordError(result.code);
        continue;
      }
      ring.push(
        clock.nowBigInt(),
        reader.index,
        reader.totalBytes,
        reader.freeBytes,
        reader.usedBytes,
        reader.reservedBytes,
        reader.processUsedBytes,
      );
    }
    ring.recordRound(previousRound === undefined ? undefined : roundStart - previousRound);
    previousRound = roundStart;
  };

  // The first round runs before the owner hears "running", so a ready sampler has a reading.
  round();
  setState(control, samplerState.running);
  post({ type: "running" });

  let next = wallStart;
  for (;;) {
    next += intervalNs;
    const now = clock.nowBigInt();
    // Behind schedule (a slow call, a descheduled thread): skip the missed ticks, keep the phase,
    // never burst to catch up.
    if (next <= now) next += ((now - next) / intervalNs + 1n) * intervalNs;
    Atomics.wait(control, controlSlot.stop, 0, Number(next - now) / 1e6);
    if (Atomics.load(control, controlSlot.stop) !== 0) break;
    round();
  }
  const cpuEnd = threadCpuTimeNs();
  ring.recordWorkerTimes(
    cpuStart === undefined || cpuEnd === undefined ? 0n : cpuEnd - cpuStart,
    clock.nowBigInt() - wallStart,
  );
  session.close();
  setState(control, samplerState.stopped);
}

run(workerData as SamplerWorkerData);
