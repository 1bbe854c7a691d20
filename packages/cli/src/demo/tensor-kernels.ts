// Dense f32 kernels of the demo MLP on row-major typed arrays. Pure math: no instrumentation here.

/** out[m×n] = a[m×k] · b[k×n], with either operand optionally transposed as stored. */
export function matmul(
  a: Float32Array,
  b: Float32Array,
  m: number,
  k: number,
  n: number,
  transposeA = false,
  transposeB = false,
): Float32Array {
  const out = new Float32Array(m * n);
  for (let row = 0; row < m; row += 1) {
    for (let inner = 0; inner < k; inner += 1) {
      const left = transposeA ? a[inner * m + row]! : a[row * k + inner]!;
      if (left === 0) continue;
      const outOffset = row * n;
      for (let column = 0; column < n; column += 1) {
        const right = transposeB ? b[column * k + inner]! : b[inner * n + column]!;
        out[outOffset + column]! += left * right;
      }
    }
  }
  return out;
}

/** Adds a bias row to every row of x[m×n]. */
export function addBias(x: Float32Array, bias: Float32Array, m: number, n: number): Float32Array {
  const out = new Float32Array(m * n);
  for (let row = 0; row < m; row += 1) {
    for (let column = 0; column < n; column += 1)
      out[row * n + column] = x[row * n + column]! + bias[column]!;
  }
  return out;
}

export function relu(x: Float32Array): Float32Array {
  return x.map((value) => Math.max(value, 0));
}

/** Gradient of relu: passes `upstream` where the pre-activation was positive. */
export function reluBackward(upstream: Float32Array, preActivation: Float32Array): Float32Array {
  return upstream.map((value, index) => (preActivation[index]! > 0 ? value : 0));
}

/**
 * Softmax cross-entropy over rows of logits[m×n] with integer labels. Returns the mean loss and
 * the gradient of the mean loss w.r.t. the logits ((softmax − one_hot) / m).
 */
export function softmaxCrossEntropy(
  logits: Float32Array,
  labels: Int32Array,
  m: number,
  n: number,
): { loss: number; gradient: Float32Array } {
  const gradient = new Float32Array(m * n);
  let loss = 0;
  for (let row = 0; row < m; row += 1) {
    let max = Number.NEGATIVE_INFINITY;
    for (let column = 0; column < n; column += 1) max = Math.max(max, logits[row * n + column]!);
    let sum = 0;
    for (let column = 0; column < n; column += 1) sum += Math.exp(logits[row * n + column]! - max);
    const label = labels[row]!;
    for (let column = 0; column < n; column += 1) {
      const probability = Math.exp(logits[row * n + column]! - max) / sum;
      gradient[row * n + column] = (probability - (column === label ? 1 : 0)) / m;
      if (column === label) loss -= Math.log(Math.max(probability, 1e-12));
    }
  }
  return { loss: loss / m, gradient };
}

/** Column sums of x[m×n] (the bias gradient). */
export function sumRows(x: Float32Array, m: number, n: number): Float32Array {
  const out = new Float32Array(n);
  for (let row = 0; row < m; row += 1) {
    for (let column = 0; column < n; column += 1) out[column]! += x[row * n + column]!;
  }
  return out;
}

/** SGD with momentum, in place: velocity = μ·velocity + g; weight −= lr·velocity. */
export function sgdMomentumUpdate(
  weight: Float32Array,
  gradient: Float32Array,
  velocity: Float32Array,
  learningRate: number,
  momentum: number,
): void {
  for (let index = 0; index < weight.length; index += 1) {
    const next = momentum * velocity[index]! + gradient[index]!;
    velocity[index] = next;
    weight[index]! -= learningRate * next;
  }
}

/** Euclidean norm, accumulated in f64. */
export function l2Norm(values: Float32Array): number {
  let sum = 0;
  for (const value of values) sum += value * value;
  return Math.sqrt(sum);
}
