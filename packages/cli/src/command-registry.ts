import type { Command } from "./command.js";
import { compareCommand } from "./commands/compare.js";
import { convertCommand } from "./commands/convert.js";
import { demoCommand } from "./commands/demo.js";
import { exportCommand } from "./commands/export.js";
import { importCommand } from "./commands/import.js";
import { queryCommand } from "./commands/query.js";
import { regressCommand } from "./commands/regress.js";
import { sqlCommand } from "./commands/sql.js";
import { summaryCommand } from "./commands/summary.js";
import { validateCommand } from "./commands/validate.js";
import { viewCommand } from "./commands/view.js";

/** Every command of `cg-trace`, in help order. To add one: a file in commands/ and a line here. */
export const commands: readonly Command[] = [
  demoCommand,
  summaryCommand,
  validateCommand,
  queryCommand,
  compareCommand,
  convertCommand,
  importCommand,
  viewCommand,
  sqlCommand,
  exportCommand,
  regressCommand,
];
