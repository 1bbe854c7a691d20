// A Verdaccio registry on loopback for the release tests: no uplinks, so nothing it serves comes
// from beyond this machine. Third-party packages the @cg/* packages need are published into it
// from the workspace's own pnpm store (the exact files pnpm installed), so a consumer's `npm
// install` is answered by loopback alone.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { repoRoot } from "./workspace-packages.js";

export interface LocalRegistry {
  url: string;
  /** A user config (`.npmrc`) with the registry and a publish token. */
  npmrc: string;
  process: ChildProcess;
  /** Environment for npm and pnpm children: only this registry, a private cache. */
  env: NodeJS.ProcessEnv;
}

async function freeLoopbackPort(): Promise<number> {
  return await new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** The environment without any npm or pnpm setting inherited from the calling package manager. */
function cleanEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|pnpm_|NPM_|PNPM_)/i.test(key)) env[key] = value;
  }
  return env;
}

/** Starts Verdaccio with the given installed third-party package directories already in storage. */
export async function startRegistry(workDir: string, thirdParty: string[]): Promise<LocalRegistry> {
  const port = await freeLoopbackPort();
  const url = `http://127.0.0.1:${port}`;
  const storage = join(workDir, "storage");
  seedInstalledCopies(storage, url, thirdParty);
  const config = join(workDir, "verdaccio.yaml");
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(storage)}`,
      "auth:",
      "  htpasswd:",
      `    file: ${JSON.stringify(join(workDir, "htpasswd"))}`,
      "uplinks: {}",
      "packages:",
      "  '**':",
      "    access: $all",
      "    publish: $authenticated",
      // Idle connections stay open: the test blocks its event loop on synchronous children
      // (pnpm release, npm install) and must not reuse a socket the server closed meanwhile.
      "server:",
      "  keepAliveTimeout: 0",
      "web:",
      "  enable: false",
      "middlewares:",
      "  audit:",
      "    enabled: false",
      "log: { type: stdout, format: pretty, level: warn }",
      "",
    ].join("\n"),
  );
  const bin = join(repoRoot, "tests", "node_modules", "verdaccio", "bin", "verdaccio");
  const child = spawn(process.execPath, [bin, "--config", config, "--listen", `127.0.0.1:${port}`], {
    cwd: workDir,
    stdio: ["ignore", "pipe", "pipe"],
    env: cleanEnvironment(),
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });

  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited (${child.exitCode}): ${output}`);
    try {
      if ((await fetch(`${url}/-/ping`)).ok) break;
    } catch {
      // not listening yet
    }
    if (attempt > 600) throw new Error(`verdaccio did not answer on ${url}: ${output}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }

  const created = await fetch(`${url}/-/user/org.couchdb.user:release-test`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      name: "release-test",
      password: "release-test-password",
      type: "user",
      roles: [],
    }),
  });
  const { token } = (await created.json()) as { token?: string };
  if (!created.ok || !token) throw new Error(`verdaccio refused the test user (${created.status})`);

  const npmrc = join(workDir, "npmrc");
  const authority = url.replace(/^http:/, "");
  writeFileSync(npmrc, `registry=${url}/\n${authority}/:_authToken=${token}\n`);
  const env: NodeJS.ProcessEnv = {
    ...cleanEnvironment(),
    NPM_CONFIG_USERCONFIG: npmrc,
    npm_config_registry: `${url}/`,
    npm_config_cache: join(workDir, "npm-cache"),
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    npm_config_loglevel: "error",
  };
  return { url, npmrc, process: child, env };
}

/** Stops the registry by its PID and waits until it is gone. */
export async function stopRegistry(registry: LocalRegistry): Promise<void> {
  const { pid } = registry.process;
  if (pid === undefined || registry.process.exitCode !== null) return;
  const exited = new Promise<void>((resolveExit) => registry.process.once("exit", () => resolveExit()));
  process.kill(pid, "SIGTERM");
  await exited;
}

interface Manifest {
  name: string;
  version: string;
  description?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** The installed copy of `name` that Node's resolution finds from `fromDir` (pnpm layout). */
function resolveInstalled(fromDir: string, name: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Every third-party package (installed directory) that the given workspace packages need at run
 * time: dependencies, optional dependencies that are installed here, and required peers.
 */
export function thirdPartyClosure(packageDirs: string[]): string[] {
  const found = new Set<string>();
  const queue = [...packageDirs];
  while (queue.length > 0) {
    const dir = queue.shift() as string;
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
    const optionalPeers = manifest.peerDependenciesMeta ?? {};
    const names = [
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.optionalDependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}).filter((name) => !optionalPeers[name]?.optional),
    ];
    for (const name of names) {
      if (name.startsWith("@cg/")) continue;
      const installed = resolveInstalled(dir, name);
      if (installed === undefined || found.has(installed)) continue;
      found.add(installed);
      queue.push(installed);
    }
  }
  return [...found].sort();
}

/**
 * Writes installed package directories (the files pnpm extracted from their original tarballs)
 * straight into Verdaccio's local storage, before it starts: a packument (`package.json`) and a
 * tarball per package, in the layout its local storage reads. Nothing goes over HTTP, so the size
 * of a package (native bindings, tfjs) does not matter, and npm is not involved, so no
 * `publishConfig` or lifecycle script of a third-party package can send anything elsewhere.
 */
function seedInstalledCopies(storage: string, url: string, dirs: string[]): void {
  const byName = new Map<string, Record<string, unknown>>();
  const now = new Date().toISOString();
  for (const dir of dirs) {
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest &
      Record<string, unknown>;
    const packageDir = join(storage, ...manifest.name.split("/"));
    mkdirSync(packageDir, { recursive: true });
    const fileName = `${manifest.name.split("/").pop()}-${manifest.version}.tgz`;
    const tarball = join(packageDir, fileName);
    if (existsSync(tarball)) continue; // the same version installed twice (peer variants)
    execFileSync("tar", [
      "-czf",
      tarball,
      "--owner=0",
      "--group=0",
      // pnpm's store hard-links identical files; npm drops hard-link entries when it extracts.
      "--hard-dereference",
      "--transform",
      "s,^\\.,package,",
      "-C",
      dir,
      ".",
    ]);
    const bytes = readFileSync(tarball);
    const shasum = createHash("sha1").update(bytes).digest("hex");
    const document = (byName.get(manifest.name) ?? {
      name: manifest.name,
      versions: {},
      time: { created: now },
      "dist-tags": {},
      _distfiles: {},
      _attachments: {},
      _uplinks: {},
      _rev: "1-0000000000000000",
    }) as {
      versions: Record<string, unknown>;
      time: Record<string, string>;
      "dist-tags": Record<string, string>;
      _attachments: Record<string, unknown>;
    };
    document.versions[manifest.version] = {
      ...manifest,
      _id: `${manifest.name}@${manifest.version}`,
      dist: {
        shasum,
        integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
        tarball: `${url}/${manifest.name}/-/${fileName}`,
      },
    };
    document.time[manifest.version] = now;
    document.time.modified = now;
    const latest = document["dist-tags"].latest;
    if (latest === undefined || compareVersions(manifest.version, latest) > 0)
      document["dist-tags"].latest = manifest.version;
    document._attachments[fileName] = { shasum, version: manifest.version };
    byName.set(manifest.name, document);
    writeFileSync(join(packageDir, "package.json"), JSON.stringify(document, null, 2));
  }
}

/** Orders plain `major.minor.patch` versions; a prerelease sorts before its release. */
function compareVersions(a: string, b: string): number {
  const parse = (version: string) => {
    const [core = "", pre] = version.split("-", 2);
    return { parts: core.split(".").map(Number), pre };
  };
  const left = parse(a);
  const right = parse(b);
  for (let index = 0; index < 3; index++) {
    const difference = (left.parts[index] ?? 0) - (right.parts[index] ?? 0);
    if (difference !== 0) return difference;
  }
  if (left.pre === right.pre) return 0;
  if (left.pre === undefined) return 1;
  if (right.pre === undefined) return -1;
  return left.pre < right.pre ? -1 : 1;
}
