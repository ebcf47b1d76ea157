// Predicted positions (`?predict=MS`) on generated hand motions: per kind of motion and
// horizon, the mean distance from the prediction to where the finger really was MS ms later,
// against the distance it moved in those ms (the error of showing the last position).
// Deterministic: the same seed gives the same table (PERFORMANCE.md, "Predicted positions").
//
//   swift run prediction-error [--trials N] [--seed S]
import ConformanceSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

var trials = 1000
var seed: UInt64 = 40
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
  switch a {
  case "--trials": trials = args.popFirst().flatMap { Int($0) } ?? trials
  case "--seed": seed = args.popFirst().flatMap { UInt64($0) } ?? seed
  default:
    print("usage: prediction-error [--trials N] [--seed S]")
    exit(2)
  }
}

func fixed(_ v: Double, _ digits: Int) -> String {
  var scale = 1.0
  for _ in 0..<digits { scale *= 10 }
  let r = (v * scale).rounded() / scale
  var s = "\(r)"
  if let dot = s.firstIndex(of: ".") {
    let decimals = s.distance(from: dot, to: s.endIndex) - 1
    if decimals < digits { s += String(repeating: "0", count: digits - decimals) }
  } else if digits > 0 {
    s += "." + String(repeating: "0", count: digits)
  }
  return s
}

print("prediction-error: \(trials) motions of each kind, seed \(seed)")
print("")
print("| motion | MS | samples | moved in MS (pt) | prediction error (pt) | error / moved |")
print("| --- | --- | --- | --- | --- | --- |")
for kind in HandMotion.Kind.allCases {
  for e in PredictionError.measure(kind, horizons: [16, 33], trials: trials, seed: seed) {
    print(
      "| \(kind.rawValue) | \(Int(e.ms)) | \(e.count) | \(fixed(e.meanMoved, 2)) | \(fixed(e.meanError, 2)) "
        + "| \(fixed(e.ratio * 100, 1)) % |")
  }
}
