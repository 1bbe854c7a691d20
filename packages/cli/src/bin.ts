#!/usr/bin/env node
import { applyHeapSettings } from "./heap-settings.js";

// Before the commands' modules load: loading alone would grow the young generation.
applyHeapSettings();
await import("./main.js");
