/**
 * Trace dtype label for a TensorFlow.js dtype. tfjs stores `bool` as one byte per element (a
 * `Uint8Array`), so it is written as `u8`, which §15.1 sizes at 1 byte. `complex64` and `string`
 * have no §15.1 label; their footprints are always passed explicitly, never derived from the label.
 */
export function traceDtypeLabel(tfjsDtype: string): string {
  switch (tfjsDtype) {
    case "float32":
      return "f32";
    case "int32":
      return "i32";
    case "bool":
      return "u8";
    case "complex64":
      return "c64";
    case "string":
      return "string";
    default:
      return tfjsDtype;
  }
}

/**
 * Dense bytes of a tfjs tensor as the CPU backend holds it: 4 per float32/int32 element, 1 per bool,
 * 8 per complex64 (two float32 parts). Strings have no fixed width; they count 0 here and the engine's
 * own byte figure is used for their memory events.
 */
export function tfjsStorageBytes(size: number, tfjsDtype: string): number {
  switch (tfjsDtype) {
    case "float32":
    case "int32":
      return size * 4;
    case "bool":
      return size;
    case "complex64":
      return size * 8;
    default:
      return 0;
  }
}
