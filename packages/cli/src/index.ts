export { writeFileAtomic, writeTextFileAtomic } from "./atomic-write.js";
export { type CliContext, processContext } from "./cli-context.js";
export { CliError, type CliErrorOptions, UsageError } from "./cli-error.js";
export type { ArgumentSpec, Command, CommandArguments, OptionSpec, OptionSpecs } from "./command.js";
export { commands } from "./command-registry.js";
export { DEFAULT_MLP_CONFIG, type MlpConfig, MlpTrainer, type StepResult } from "./demo/mlp-trainer.js";
export {
  DEMO_ENTRYPOINT,
  DEMO_MODELS,
  type DemoModelKind,
  type DemoOptions,
  type DemoResult,
  runDemo,
  TFJS_DEMO_ENTRYPOINT,
} from "./demo/run-demo.js";
export { ExitCode } from "./exit-codes.js";
export { stringifyJson } from "./format/json-output.js";
export {
  convertBatchesToPerfetto,
  convertToPerfetto,
  type PerfettoConvertOptions,
  type PerfettoConvertStats,
} from "./perfetto/perfetto-convert.js";
export { buildProgram, runCli } from "./run-cli.js";
export { buildSummaryView, type SummaryView } from "./views/summary-view.js";
