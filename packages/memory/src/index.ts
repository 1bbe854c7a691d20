export { categoryForStep } from "./category-for-step.js";
export { dtypeSizeBytes, isKnownDtype, trimUnicodeWhiteSpace } from "./dtype-size.js";
export { MemoryInputError, type MemoryInputErrorOptions } from "./memory-input-error.js";
export { elementCount, multiplyU64Saturating, resolveStorageBytes, storageBytes } from "./storage-bytes.js";
