// Writes src/canonical-decoder-module.generated.ts from wasm/canonical-decoder.c (needs clang and lld).
//   tsx scripts/generate-canonical-decoder.ts
import { writeFileSync } from "node:fs";
import {
  clangVersion,
  compileDecoder,
  generatedModulePath,
  renderDecoderModule,
} from "./canonical-decoder-build.js";

writeFileSync(generatedModulePath, renderDecoderModule(compileDecoder(), clangVersion()));
