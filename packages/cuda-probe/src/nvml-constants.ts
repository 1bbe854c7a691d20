// NVML return codes, struct layouts and versions, as declared in nvml.h (x86_64 / aarch64 LP64).

/** `nvmlReturn_t` values the probe distinguishes. */
export const NvmlReturn = {
  success: 0,
  uninitialized: 1,
  invalidArgument: 2,
  notSupported: 3,
  noPermission: 4,
  notFound: 6,
  insufficientSize: 7,
  driverNotLoaded: 9,
  libraryNotFound: 12,
  functionNotFound: 13,
  gpuIsLost: 15,
  argumentVersionMismatch: 25,
  deprecated: 26,
  unknown: 999,
} as const;

/** `nvmlMemory_t`: total, free, used (three unsigned long long). */
export const memoryV1Layout = { size: 24, total: 0, free: 8, used: 16 } as const;

/** `nvmlMemory_v2_t`: unsigned int version (padded to 8), then total, reserved, free, used. */
export const memoryV2Layout = { size: 40, version: 0, total: 8, reserved: 16, free: 24, used: 32 } as const;

/** `nvmlMemory_v2` = NVML_STRUCT_VERSION(Memory, 2) = sizeof(nvmlMemory_v2_t) | (2 << 24). */
export const memoryV2Version = memoryV2Layout.size | (2 << 24);

/** `nvmlProcessInfo_t` (used by the _v2 and _v3 running-processes queries): pid, usedGpuMemory, two ids. */
export const processInfoLayout = { size: 24, pid: 0, usedGpuMemory: 8 } as const;

/** NVML_VALUE_NOT_AVAILABLE: an unknown unsigned long long. */
export const valueNotAvailable = 0xffff_ffff_ffff_ffffn;

/** NVML_DEVICE_NAME_V2_BUFFER_SIZE and NVML_DEVICE_UUID_V2_BUFFER_SIZE. */
export const nameBufferSize = 96;
export const uuidBufferSize = 96;
