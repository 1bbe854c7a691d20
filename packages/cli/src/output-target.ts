import { closeSync, lstatSync, mkdirSync, openSync, readlinkSync, rmSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { bufferedWriter, realFs, temporaryPathFor, type WriteFs, writeFileAtomic } from "./atomic-write.js";
import type { CliContext } from "./cli-context.js";
import { CliError } from "./cli-error.js";
import { ExitCode } from "./exit-codes.js";
import { escapeControl } from "./format/escape-control.js";

/** How an `-o` argument is written. */
export type OutputKind =
  /** `-`: the process's standard output. */
  | "stdout"
  /** A FIFO, character device or socket (e.g. /dev/stdout): written in place, never replaced. */
  | "stream"
  /** A regular file (new or existing, possibly behind symlinks): replaced atomically. */
  | "file";

export interface ResolvedOutput {
  kind: OutputKind;
  /** For /dev/stdout, /dev/fd/N and the like: the descriptor this process already has. */
  descriptor?: number;
  /** The path to open or replace: a symlink's final target for "file". */
  path: string;
  /** Permission bits of the file being replaced, kept on the new one. */
  mode?: number;
}

const REASONS: Record<string, string> = {
  ENOENT: "no such file or directory",
  ENOTDIR: "a parent of it is not a directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EISDIR: "is a directory",
  EFBIG: "file too large",
  EIO: "input/output error",
  ELOOP: "too many levels of symbolic links",
  ENAMETOOLONG: "name too long",
  ENXIO: "no reader on the other end",
  EPIPE: "the reader closed the pipe",
};

/** One line for a failed write, naming the path the user gave; exit status 2. */
export function outputError(userPath: string, error: unknown, keptOld: boolean): CliError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason =
    (code === undefined ? undefined : REASONS[code]) ??
    (error instanceof Error ? error.message.split("\n")[0] : String(error));
  const kept = keptOld ? " (the existing file is unchanged)" : "";
  return new CliError({
    message: `cannot write ${escapeControl(userPath)}: ${reason}${kept}`,
    exitCode: ExitCode.Usage,
    cause: error,
  });
}

function statOrUndefined(path: string, stat: typeof lstatSync = lstatSync) {
  try {
    return stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * What writing to `target` means: follows symlinks to their final target (also a dangling one,
 * which is then created), refuses directories and missing parent folders with a clear error.
 */
export function resolveOutput(target: string, cwd: string): ResolvedOutput {
  if (target === "-") return { kind: "stdout", path: "-" };
  let path = resolve(cwd, target);
  // These name descriptors the process already holds; reopening them fails for a socket (the
  // stdout of a child started by Node), so they are written through the descriptor itself.
  const own = /^\/(?:dev\/(stdout|stderr|fd\/(\d+))|proc\/self\/fd\/(\d+))$/.exec(path);
  if (own !== null) {
    const descriptor = own[1] === "stdout" ? 1 : own[1] === "stderr" ? 2 : Number(own[2] ?? own[3]);
    return descriptor === 1 ? { kind: "stdout", path } : { kind: "stream", path, descriptor };
  }
  try {
    const followed = statOrUndefined(path, statSync);
    if (followed?.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    // /dev/stdout is a link to /proc/self/fd/1, whose target ("pipe:[…]") is no path: anything that
    // is not a regular file, or lives under /dev or /proc, is opened as given and written in place.
    if (followed !== undefined && (!followed.isFile() || /^\/(dev|proc)\//.test(path))) {
      return { kind: "stream", path };
    }
    for (let hops = 0; ; hops += 1) {
      const stats = statOrUndefined(path);
      if (stats === undefined) {
        const parent = statSync(dirname(path));
        if (!parent.isDirectory()) throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
        return { kind: "file", path };
      }
      if (stats.isSymbolicLink()) {
        if (hops >= 40) throw Object.assign(new Error("symlink loop"), { code: "ELOOP" });
        path = resolve(dirname(path), readlinkSync(path));
        continue;
      }
      return { kind: "file", path, mode: stats.mode & 0o7777 };
    }
  } catch (error) {
    if (CliError.isInstance(error)) throw error;
    throw outputError(target, error, false);
  }
}

export interface WriteOutputOptions {
  fs?: WriteFs;
}

/**
 * Writes the text `produce` appends to the `-o` target the user gave: `-` is standard output, a
 * FIFO or character device is written in place, anything else is a regular file replaced
 * atomically (through symlinks, to their target). Any failure is one CliError naming `target`.
 */
export async function writeOutput<T>(
  target: string,
  context: CliContext,
  produce: (write: (text: string) => void) => T | Promise<T>,
  options: WriteOutputOptions = {},
): Promise<{ result: T; kind: OutputKind }> {
  const output = resolveOutput(target, context.cwd);
  const fs = options.fs ?? realFs;
  if (output.kind === "stdout" && context.stdoutDescriptor === undefined) {
    // In-process callers (tests, embedders) capture stdout through the context.
    return { result: await produce((text) => context.stdout(text)), kind: "stdout" };
  }
  if (output.kind !== "file") {
    let descriptor: number | undefined;
    try {
      descriptor =
        output.kind === "stdout"
          ? context.stdoutDescriptor!
          : (output.descriptor ?? fs.openSync(output.path, "w"));
      const writer = bufferedWriter(descriptor, fs);
      const result = await produce(writer.write);
      writer.flush();
      return { result, kind: output.kind };
    } catch (error) {
      throw CliError.isInstance(error) || !isSystemError(error) ? error : outputError(target, error, false);
    } finally {
      if (descriptor !== undefined && output.kind === "stream" && output.descriptor === undefined)
        fs.closeSync(descriptor);
    }
  }
  try {
    const result = await writeFileAtomic(output.path, produce, {
      fs,
      ...(output.mode === undefined ? {} : { mode: output.mode }),
    });
    return { result, kind: "file" };
  } catch (error) {
    throw CliError.isInstance(error) || !isSystemError(error)
      ? error
      : outputError(target, error, output.mode !== undefined);
  }
}

const WRITE_SYSCALLS = new Set(["open", "write", "fsync", "close", "rename", "chmod", "mkdir"]);

/**
 * Creates `directory` and its missing parents, one level at a time. Node's own
 * `mkdir({ recursive: true })` loops forever where mkdir(2) says ENOENT under an existing parent
 * (inside /proc, for example); here every failure is an error.
 */
export function ensureDirectory(directory: string): void {
  const missing: string[] = [];
  let current = resolve(directory);
  for (;;) {
    const stats = statOrUndefined(current);
    if (stats !== undefined) {
      if (!stats.isDirectory())
        throw Object.assign(new Error("not a directory"), { code: "ENOTDIR", syscall: "mkdir" });
      break;
    }
    missing.push(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const path of missing.reverse()) {
    try {
      mkdirSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

/**
 * Makes sure files can be created in the output folder `directory` (given by the user as
 * `userPath`), before any long work: creates it, and creates and removes a probe file in it.
 */
export function prepareOutputDirectory(directory: string, userPath: string): void {
  try {
    ensureDirectory(directory);
    const probe = temporaryPathFor(resolve(directory, "probe"));
    closeSync(openSync(probe, "wx"));
    rmSync(probe, { force: true });
  } catch (error) {
    throw outputError(userPath, error, false);
  }
}

/** Rethrows a failed system call of writing as a CliError naming `userPath`; anything else as is. */
export function asOutputError(error: unknown, userPath: string): unknown {
  return CliError.isInstance(error) || !isSystemError(error) ? error : outputError(userPath, error, false);
}

/** A failure of one of the output's own system calls, as opposed to one of reading the input. */
function isSystemError(error: unknown): boolean {
  const syscall = (error as NodeJS.ErrnoException | undefined)?.syscall;
  return syscall !== undefined && WRITE_SYSCALLS.has(syscall);
}
