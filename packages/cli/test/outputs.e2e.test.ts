import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fixturesDir } from "@cg/tooling-vitest";
import { beforeAll, describe, expect, it } from "vitest";
import { generateWriterShapedTrace } from "../../../bench/src/support/writer-shaped-trace.js";
import { bin, ensureBuilt, runBinary } from "./built-binary.js";
import { golden, scratchDirForFile } from "./test-files.js";

const scratch = scratchDirForFile("cg-cli-outputs-");
const cgTrace = (args: string[], env: Record<string, string> = {}) => runBinary(args, { cwd: scratch, env });

/** Mounts a tmpfs of `size` on `directory`; false when this process may not mount (not root). */
function mountTmpfs(directory: string, size: string): boolean {
  if (process.getuid?.() !== 0) return false;
  mkdirSync(directory, { recursive: true });
  return spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", directory]).status === 0;
}

beforeAll(ensureBuilt, 300_000);

describe("cg-trace outputs (built binary)", () => {
  const canMount = mountTmpfs(join(scratch, "probe-mount"), "64k");
  if (canMount) spawnSync("umount", [join(scratch, "probe-mount")]);

  it.runIf(canMount)("a full disk fails with exit 2 and keeps the previous report (256 KiB tmpfs)", () => {
    const disk = join(scratch, "small-disk");
    expect(mountTmpfs(disk, "256k")).toBe(true);
    try {
      const report = join(disk, "report.html");
      expect(cgTrace(["view", golden, "-o", report]).status).toBe(0);
      const good = readFileSync(report, "utf8");
      // Fill the disk, then free 8 KiB: far less than the next report needs.
      const filler = join(disk, "filler");
      spawnSync("sh", ["-c", `cat /dev/zero > ${filler}`]);
      const fillerSize = lstatSync(filler).size;
      execFileSync("truncate", ["-s", String(fillerSize - 8192), filler]);
      const full = cgTrace(["view", golden, "--title", "second", "-o", report]);
      expect(full).toMatchObject({
        status: 2,
        stdout: "",
        stderr: `cg-trace: cannot write ${report}: no space left on device (the existing file is unchanged)\n`,
      });
      expect(readFileSync(report, "utf8")).toBe(good);
      expect(readdirSync(disk).sort()).toEqual(["filler", "report.html"]);
      const convert = cgTrace(["convert", golden, "-o", join(disk, "new.json")]);
      expect(convert.status).toBe(0); // 2.5 KB still fits
      rmSync(join(disk, "new.json"));
      // Extending with truncate would leave a hole: write zeros until the disk is full again.
      spawnSync("sh", ["-c", `cat /dev/zero >> ${filler}`]);
      const none = cgTrace(["convert", golden, "-o", join(disk, "new.json")]);
      expect(none.status).toBe(2);
      expect(none.stderr).toBe(`cg-trace: cannot write ${join(disk, "new.json")}: no space left on device\n`);
      expect(readdirSync(disk).sort()).toEqual(["filler", "report.html"]);
    } finally {
      spawnSync("umount", [disk]);
    }
  });

  it.runIf(canMount)("a read-only folder is one line naming the path, exit 2", () => {
    const disk = join(scratch, "read-only");
    expect(mountTmpfs(disk, "64k")).toBe(true);
    try {
      execFileSync("mount", ["-o", "remount,ro", disk]);
      const convert = cgTrace(["convert", golden, "-o", join(disk, "x.json")]);
      expect(convert).toMatchObject({
        status: 2,
        stderr: `cg-trace: cannot write ${join(disk, "x.json")}: read-only file system\n`,
      });
      const demo = cgTrace(["demo", "--model", "mlp", "--no-gpu", "--out", join(disk, "demo")]);
      expect(demo).toMatchObject({
        status: 2,
        stderr: `cg-trace: cannot write ${join(disk, "demo")}: read-only file system\n`,
      });
    } finally {
      spawnSync("umount", [disk]);
    }
  });

  it("names the user's path for a missing folder, a directory and an unwritable demo folder", () => {
    const missing = cgTrace(["convert", golden, "-o", "/nonexistent/dir/x.json"]);
    expect(missing).toMatchObject({
      status: 2,
      stderr: "cg-trace: cannot write /nonexistent/dir/x.json: no such file or directory\n",
    });
    mkdirSync(join(scratch, "a-folder"));
    const directory = cgTrace(["view", golden, "-o", "a-folder"]);
    expect(directory).toMatchObject({
      status: 2,
      stderr: "cg-trace: cannot write a-folder: is a directory\n",
    });
    const proc = runBinary(["demo", "--model", "mlp", "--out", "/proc/nope"], {
      cwd: scratch,
      timeout: 30_000,
    });
    expect(proc).toMatchObject({
      status: 2,
      stderr: "cg-trace: cannot write /proc/nope: no such file or directory\n",
    });
    writeFileSync(join(scratch, "a-file"), "");
    const underFile = cgTrace(["demo", "--model", "mlp", "--out", "a-file/out"]);
    expect(underFile).toMatchObject({
      status: 2,
      stderr: "cg-trace: cannot write a-file/out: a parent of it is not a directory\n",
    });
  });

  it("-o - writes to stdout, and the note about it to stderr", () => {
    const result = cgTrace(["convert", golden, "-o", "-"]);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).traceEvents.length).toBeGreaterThan(5);
    expect(result.stderr).toContain("wrote -: 5 spans");
    expect(existsSync(join(scratch, "-"))).toBe(false);
    const html = cgTrace(["view", golden, "-o", "-"]);
    expect(html.stdout.startsWith("<!doctype html>")).toBe(true);
  });

  it("--to defaults to perfetto", () => {
    const result = cgTrace(["convert", golden, "-o", "default.json"]);
    expect(result.status).toBe(0);
    expect(JSON.parse(readFileSync(join(scratch, "default.json"), "utf8")).displayTimeUnit).toBe("ns");
  });

  it("writes through a symlink (also a dangling one) to its target and keeps the link", () => {
    writeFileSync(join(scratch, "target.json"), "old");
    symlinkSync("target.json", join(scratch, "link.json"));
    symlinkSync("created.json", join(scratch, "dangling.json"));
    expect(cgTrace(["convert", golden, "-o", "link.json"]).status).toBe(0);
    expect(cgTrace(["convert", golden, "-o", "dangling.json"]).status).toBe(0);
    expect(readlinkSync(join(scratch, "link.json"))).toBe("target.json");
    expect(readlinkSync(join(scratch, "dangling.json"))).toBe("created.json");
    expect(JSON.parse(readFileSync(join(scratch, "target.json"), "utf8")).displayTimeUnit).toBe("ns");
    expect(JSON.parse(readFileSync(join(scratch, "created.json"), "utf8")).displayTimeUnit).toBe("ns");
  });

  it("keeps the mode of a replaced file", () => {
    const path = join(scratch, "private.json");
    writeFileSync(path, "old");
    chmodSync(path, 0o600);
    expect(cgTrace(["convert", golden, "-o", path]).status).toBe(0);
    expect(lstatSync(path).mode & 0o777).toBe(0o600);
  });

  it("writes into a FIFO for its reader and to /dev/stdout without replacing either", async () => {
    const fifo = join(scratch, "pipe");
    execFileSync("mkfifo", [fifo]);
    const reader = spawn("cat", [fifo]);
    let received = "";
    reader.stdout.on("data", (chunk: Buffer) => {
      received += chunk.toString();
    });
    const readerDone = new Promise((done) => reader.on("close", done));
    const result = await new Promise<number | null>((done) => {
      const child = spawn(process.execPath, [bin, "convert", golden, "-o", fifo], {
        cwd: scratch,
        stdio: "ignore",
      });
      child.on("close", done);
    });
    await readerDone;
    expect(result).toBe(0);
    expect(JSON.parse(received).displayTimeUnit).toBe("ns");
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    const stdout = cgTrace(["convert", golden, "-o", "/dev/stdout"]);
    expect(stdout.status).toBe(0);
    expect(JSON.parse(stdout.stdout).displayTimeUnit).toBe("ns");
    expect(stdout.stderr).toContain("wrote /dev/stdout");
    expect(lstatSync("/dev/stdout").isSymbolicLink() || lstatSync("/dev/stdout").isCharacterDevice()).toBe(
      true,
    );
    expect(cgTrace(["convert", golden, "-o", "/dev/null"]).status).toBe(0);
    expect(lstatSync("/dev/null").isCharacterDevice()).toBe(true);
  });

  it("escapes control characters in printed paths, so a file name cannot forge a verdict line", () => {
    const crafted = join(scratch, "x.jsonl: valid, trusted\nreal");
    writeFileSync(crafted, readFileSync(join(fixturesDir, "invalid/n01-meta-not-first.jsonl")));
    const result = cgTrace(["validate", crafted]);
    expect(result.status).toBe(2);
    expect(result.stderr.split("\n").filter(Boolean)).toHaveLength(1);
    expect(result.stderr).toContain("x.jsonl: valid, trusted\\nreal");
    const untrusted = join(scratch, "u\u001b[2K\r.jsonl");
    writeFileSync(untrusted, readFileSync(golden));
    const ok = cgTrace(["validate", untrusted]);
    expect(ok.stdout).toContain("u\\x1b[2K\\r.jsonl: valid, trusted");
    expect(ok.stdout).not.toContain("\u001b");
    const summary = cgTrace(["summary", untrusted, "--json"]);
    expect(JSON.parse(summary.stdout).file).toBe(untrusted);
    const text = cgTrace(["summary", untrusted]);
    expect(text.stdout).not.toContain("\u001b");
  });

  it.each(["SIGINT", "SIGTERM"] as const)(
    "%s (Ctrl-C, kill) during convert removes the temp output and the sort's spill folder, then dies of it",
    async (sent) => {
      const trace = join(scratch, "big.jsonl");
      if (!existsSync(trace)) generateWriterShapedTrace(trace, 40 * 1024 * 1024);
      const temporary = join(scratch, `tmp-for-sort-${sent}`);
      mkdirSync(temporary);
      const outDir = join(scratch, `interrupted-${sent}`);
      mkdirSync(outDir);
      const child = spawn(process.execPath, [bin, "convert", trace, "-o", join(outDir, "big.json")], {
        cwd: scratch,
        env: { ...process.env, TMPDIR: temporary },
        stdio: "ignore",
      });
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
        child.on("exit", (code, signal) => done({ code, signal })),
      );
      // Wait until both the temp output and the spill folder exist, then interrupt.
      for (let waited = 0; ; waited += 50) {
        if (readdirSync(outDir).some((name) => name.endsWith(".tmp")) && readdirSync(temporary).length > 0)
          break;
        if (waited > 120_000) throw new Error("convert never started writing");
        await new Promise((done) => setTimeout(done, 50));
      }
      child.kill(sent);
      const { signal } = await exited;
      expect(signal).toBe(sent);
      expect(readdirSync(outDir)).toEqual([]);
      expect(readdirSync(temporary)).toEqual([]);
    },
    180_000,
  );
});
