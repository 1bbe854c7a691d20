// The built package: its sampler worker is a real file beside the bundle, found from the ESM and
// the CommonJS entry alike.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dist } from "./built-package.js";
import { runModule } from "./child-process.js";
import { buildFakeNvml, removeFakeNvmlBuilds } from "./fake-nvml.js";

let libraryPath: string;

beforeAll(() => {
  libraryPath = buildFakeNvml("full");
});

afterAll(() => removeFakeNvmlBuilds());

function samplerScript(load: string): string {
  return `
    ${load}
    const opened = openProbe({ libraryPath: ${JSON.stringify(libraryPath)} });
    if (!opened.ok) throw opened.error;
    const sampler = opened.probe.startSampler({ intervalMs: 2 });
    await sampler.whenReady();
    await new Promise((resolve) => setTimeout(resolve, 40));
    const events = [];
    const stats = sampler.stop({ recordDeviceMemory: (device) => events.push(device) });
    opened.probe.close();
    console.log(JSON.stringify({ samples: stats.samples, delivered: stats.delivered, devices: [...new Set(events)].sort() }));
  `;
}

describe("built package", () => {
  it("runs the sampler worker from dist through the ESM entry", () => {
    const entry = pathToFileURL(join(dist, "index.js")).href;
    const result = runModule(samplerScript(`const { openProbe } = await import(${JSON.stringify(entry)});`), {
      loader: false,
    });
    expect(result.stderr).toBe("");
    const output = JSON.parse(result.stdout);
    expect(output.samples).toBeGreaterThan(2);
    expect(output.delivered).toBe(output.samples);
    expect(output.devices).toEqual(["cuda:0", "cuda:1"]);
  });

  it("runs the sampler worker from dist through the CommonJS entry", () => {
    const entry = join(dist, "index.cjs");
    const load = `import { createRequire } from "node:module"; const { openProbe } = createRequire(import.meta.url)(${JSON.stringify(entry)});`;
    const result = runModule(samplerScript(load), { loader: false });
    expect(result.stderr).toBe("");
    const output = JSON.parse(result.stdout);
    expect(output.samples).toBeGreaterThan(2);
    expect(output.devices).toEqual(["cuda:0", "cuda:1"]);
  });
});
