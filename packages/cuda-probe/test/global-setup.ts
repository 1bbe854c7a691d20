import { ensureBuilt } from "./built-package.js";

export default function setup(): void {
  ensureBuilt();
}
