import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runModule, sourceEntry } from "./child-process.js";
import { fakeNvmlForFile } from "./fake-nvml.js";

const nvml = fakeNvmlForFile("cg-cuda-probe-");

const koffiLoaded = `Object.keys(createRequire(import.meta.url).cache).some((key) => key.includes("koffi"))`;

describe("in a whole process", () => {
  it("importing the package loads no native code; the first openProbe does", () => {
    const result = runModule(`
      import { createRequire } from "node:module";
      const probeModule = await import(${JSON.stringify(sourceEntry)});
      const afterImport = ${koffiLoaded};
      const opened = probeModule.openProbe({ libraryPath: ${JSON.stringify(nvml.libraryPath)} });
      const afterOpen = ${koffiLoaded};
      console.log(JSON.stringify({ afterImport, afterOpen, ok: opened.ok }));
      opened.probe.close();
    `);
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual({ afterImport: false, afterOpen: true, ok: true });
  });

  it("shuts NVML down at process exit when the program forgets to close", () => {
    const log = join(nvml.scratch, "shutdown.log");
    const result = runModule(
      `
      const { openProbe } = await import(${JSON.stringify(sourceEntry)});
      const opened = openProbe({ libraryPath: ${JSON.stringify(nvml.libraryPath)} });
      console.log(opened.ok, opened.probe.sample().length);
    `,
      { env: { FAKE_NVML_LOG: log } },
    );
    expect(result.stdout.trim()).toBe("true 2");
    expect(readFileSync(log, "utf8")).toBe("nvmlShutdown\n");
  });

  it("a running sampler never keeps the program alive", () => {
    const result = runModule(`
      const { openProbe } = await import(${JSON.stringify(sourceEntry)});
      const opened = openProbe({ libraryPath: ${JSON.stringify(nvml.libraryPath)} });
      const sampler = opened.probe.startSampler({ intervalMs: 1 });
      await sampler.whenReady();
      console.log(sampler.state);
    `);
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe("running");
  });

  it("openProbe on a machine without NVML reports why and does not throw", () => {
    const result = runModule(
      `
      const { openProbe } = await import(${JSON.stringify(sourceEntry)});
      const opened = openProbe();
      console.log(JSON.stringify({ ok: opened.ok, reason: opened.reason, tried: opened.error.attempts.map((a) => a.path) }));
    `,
      { env: { CG_NVML_LIBRARY: join(nvml.scratch, "libnvidia-ml.so.1") } },
    );
    expect(JSON.parse(result.stdout)).toEqual({
      ok: false,
      reason: "library-not-found",
      tried: [join(nvml.scratch, "libnvidia-ml.so.1")],
    });
  });
});
