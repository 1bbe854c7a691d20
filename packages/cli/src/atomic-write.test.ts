import * as fs from "node:fs";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { realFs, type WriteFs, writeFileAtomic } from "./atomic-write.js";

/** A file system whose writes take at most `maxBytes` each, and fail with ENOSPC past `capacity`. */
function faultyFs(maxBytes: number, capacity = Number.POSITIVE_INFINITY): WriteFs & { calls: number } {
  let total = 0;
  const faulty = {
    ...realFs,
    calls: 0,
    writeSync(descriptor: number, buffer: Uint8Array, offset: number, length: number): number {
      faulty.calls += 1;
      const room = capacity - total;
      if (room <= 0)
        throw Object.assign(new Error("ENOSPC: no space left on device, write"), {
          code: "ENOSPC",
          syscall: "write",
        });
      const count = Math.min(length, maxBytes, room);
      const written = fs.writeSync(descriptor, buffer, offset, count);
      total += written;
      return written;
    },
  };
  return faulty;
}

describe("writeFileAtomic", () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "cg-atomic-"));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it("completes every write when the system writes fewer bytes than asked", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: "grapheme" }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 9 }),
        async (pieces, maxBytes) => {
          const target = join(directory, "out.txt");
          await writeFileAtomic(target, (write) => pieces.forEach(write), { fs: faultyFs(maxBytes) });
          expect(readFileSync(target, "utf8")).toBe(pieces.join(""));
        },
      ),
      { numRuns: 50 },
    );
  });

  it("writes exactly the UTF-8 of its pieces, small and larger than its buffer", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.string({ unit: "grapheme", maxLength: 200 }),
            fc.constantFrom("é".repeat(40_000), "\u{1F600}".repeat(70_000), "x".repeat(300_000)),
          ),
          { maxLength: 30 },
        ),
        async (pieces) => {
          const target = join(directory, "out.txt");
          await writeFileAtomic(target, (write) => pieces.forEach(write), { fs: faultyFs(70_000) });
          expect(readFileSync(target).equals(Buffer.from(pieces.join(""), "utf8"))).toBe(true);
        },
      ),
      { numRuns: 30 },
    );
  });

  it("keeps the old file and removes the temp file when the disk fills up", async () => {
    const target = join(directory, "report.html");
    writeFileSync(target, "the good report");
    const faulty = faultyFs(4096, 10_000);
    await expect(
      writeFileAtomic(
        target,
        (write) => {
          for (let index = 0; index < 100; index += 1) write("x".repeat(1000));
        },
        { fs: faulty },
      ),
    ).rejects.toMatchObject({ code: "ENOSPC" });
    expect(faulty.calls).toBeGreaterThan(2);
    expect(readFileSync(target, "utf8")).toBe("the good report");
    expect(readdirSync(directory)).toEqual(["report.html"]);
  });

  it("fails on a write that makes no progress instead of looping", async () => {
    const stuck: WriteFs = { ...realFs, writeSync: () => 0 };
    await expect(
      writeFileAtomic(join(directory, "x"), (write) => write("abc"), { fs: stuck }),
    ).rejects.toMatchObject({
      code: "EIO",
    });
    expect(readdirSync(directory)).toEqual([]);
  });

  it("flushes the data to disk before the rename", async () => {
    const order: string[] = [];
    const recording: WriteFs = {
      ...realFs,
      fsyncSync: (descriptor) => {
        order.push("fsync");
        fs.fsyncSync(descriptor);
      },
      renameSync: (from, to) => {
        order.push("rename");
        fs.renameSync(from, to);
      },
    };
    await writeFileAtomic(join(directory, "x"), (write) => write("abc"), { fs: recording });
    expect(order).toEqual(["fsync", "rename"]);
  });
});
