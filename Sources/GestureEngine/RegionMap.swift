import TouchProtocol

/// The source's hit-test rectangles; listed order is z order, so hits come topmost first.
struct RegionMap: Sendable, Equatable {
  var regions: [Region]

  func hit(_ x: Double, _ y: Double) -> [String] {
    guard !regions.isEmpty else { return [] }
    return regions.compactMap { $0.contains(x: x, y: y) ? $0.id : nil }
  }
}
