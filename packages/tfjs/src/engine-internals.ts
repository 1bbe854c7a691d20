// The members of the tfjs engine, tensors and optimizers that the instrumentation hooks. They are not
// part of tfjs's typed public API, so they are described here once and reached through these types.

export interface TensorLike {
  readonly id: number;
  readonly shape: number[];
  readonly dtype: string;
  readonly size: number;
  readonly dataId: object;
  dataSync(): ArrayLike<number> | Uint8Array[];
}

export interface VariableLike extends TensorLike {
  readonly name: string;
  readonly trainable: boolean;
}

export interface DataInfo {
  bytes: number;
  backend: unknown;
}

export type KernelResult = TensorLike | TensorLike[];

export interface EngineInternals {
  runKernel(kernelName: string, inputs: object, attrs?: object): KernelResult;
  trackTensor(tensor: TensorLike, backend: unknown): void;
  removeDataId(dataId: object, backend: unknown): void;
  gradients(
    f: () => TensorLike,
    xs: TensorLike[],
    dy?: unknown,
    allowNoGradients?: boolean,
  ): { value: TensorLike; grads: Array<TensorLike | null | undefined> };
  state: {
    numBytes: number;
    tensorInfo: { has(dataId: object): boolean; get(dataId: object): DataInfo | undefined };
    registeredVariables: Record<string, VariableLike>;
  };
}

/** `variableGradients` as tfjs optimizers accept it: a name map or a list of `{ name, tensor }`. */
export type VariableGradients =
  | Record<string, TensorLike | null | undefined>
  | Array<{ name: string; tensor: TensorLike | null | undefined }>;

export interface OptimizerLike {
  applyGradients(variableGradients: VariableGradients): void;
}
