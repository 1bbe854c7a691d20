// Element types as ONNX Runtime names them, mapped to the trace's dtype labels (spec §15.1), so
// storage bytes resolve. Three spellings meet here: the profile's (`float`, `MLFloat16`), the
// JavaScript tensor types (`float32`, `float16`) and the ONNX TensorProto enum (1 = FLOAT, …).
const LABELS: Readonly<Record<string, string>> = {
  float: "f32",
  float32: "f32",
  double: "f64",
  float64: "f64",
  mlfloat16: "f16",
  float16: "f16",
  bfloat16: "bf16",
  int8: "i8",
  int8_t: "i8",
  int16: "i16",
  int16_t: "i16",
  int32: "i32",
  int32_t: "i32",
  int64: "i64",
  int64_t: "i64",
  uint8: "u8",
  uint8_t: "u8",
  uint16: "u16",
  uint16_t: "u16",
  uint32: "u32",
  uint32_t: "u32",
  uint64: "u64",
  uint64_t: "u64",
  bool: "bool",
  string: "string",
  float8e4m3fn: "f8e4m3fn",
  float8e4m3fnuz: "f8e4m3fnuz",
  float8e5m2: "f8e5m2",
  float8e5m2fnuz: "f8e5m2fnuz",
  int4: "i4",
  uint4: "u4",
};

/** The trace dtype label of an ONNX Runtime or ONNX element type name; unknown names are kept lower-cased. */
export function traceDtype(ortType: string): string {
  const key = ortType.trim().toLowerCase();
  return LABELS[key] ?? key;
}

// ONNX TensorProto.DataType numbers, in enum order (index = number).
const TENSOR_PROTO_TYPES = [
  "undefined",
  "float",
  "uint8",
  "int8",
  "uint16",
  "int16",
  "int32",
  "int64",
  "string",
  "bool",
  "float16",
  "double",
  "uint32",
  "uint64",
  "complex64",
  "complex128",
  "bfloat16",
  "float8e4m3fn",
  "float8e4m3fnuz",
  "float8e5m2",
  "float8e5m2fnuz",
  "uint4",
  "int4",
];

/** The trace dtype label of an ONNX `TensorProto.DataType` number. */
export function traceDtypeOfTensorProto(dataType: number): string {
  return traceDtype(TENSOR_PROTO_TYPES[dataType] ?? `onnx_type_${dataType}`);
}
