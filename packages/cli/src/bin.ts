#!/usr/bin/env node
import { applyV8Settings } from "./v8-settings.js";

// Before the commands' modules load: loading alone would grow the young generation, and TurboFan
// compiles what runs first with the inlining it is given then.
applyV8Settings();
await import("./main.js");
