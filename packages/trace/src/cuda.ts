// The NVML device-memory probe (loads libnvidia-ml through koffi when opened). Kept apart from the
// main entry so that `import "@cg/trace"` never loads native code.
export * from "@cg/cuda-probe";
