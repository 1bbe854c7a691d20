import { readFileSync } from "node:fs";
import { processContext } from "./cli-context.js";
import { runCli } from "./run-cli.js";

function packageVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version?: unknown;
    };
    return typeof manifest.version === "string" ? manifest.version : "unknown";
  } catch {
    return "unknown";
  }
}

process.exitCode = await runCli(process.argv.slice(2), processContext(packageVersion()));
