/** The logistic function: a log-odds to a probability. */
export function logistic(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

/** A fitted linear model's probability: logistic(bias + Σ weights·features), over the weights' length. */
export function linearProbability(weights: Float64Array, bias: number, features: Float64Array): number {
  let z = bias;
  for (let i = 0; i < weights.length; i++) z += weights[i]! * features[i]!;
  return logistic(z);
}
