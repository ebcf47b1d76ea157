import Foundation

/// The 16 unistroke shapes of the $1 recognizer's published set (Wobbrock, Wilson and Li, UIST
/// 2007, figure 2), built from their geometry as polylines in a 100-point box (y grows down,
/// as on a screen): one template each for the shape tests.
enum UnistrokeShapes {
  typealias Point = (x: Double, y: Double)

  static let all: [(name: String, points: [Point])] = [
    ("triangle", [(50, 0), (0, 87), (100, 87), (50, 0)]),
    ("x", [(0, 0), (100, 100), (100, 0), (0, 100)]),
    ("rectangle", [(0, 0), (0, 70), (100, 70), (100, 0), (0, 0)]),
    ("circle", arc(cx: 50, cy: 50, r: 50, from: -90, to: 270)),
    ("check", [(0, 50), (30, 90), (100, 0)]),
    ("caret", [(0, 100), (50, 0), (100, 100)]),
    ("zig-zag", [(0, 0), (20, 40), (40, 0), (60, 40), (80, 0), (100, 40)]),
    ("arrow", [(0, 100), (100, 0), (55, 5), (100, 0), (95, 45)]),
    ("left square bracket", [(40, 0), (0, 0), (0, 100), (40, 100)]),
    ("right square bracket", [(0, 0), (40, 0), (40, 100), (0, 100)]),
    ("v", [(0, 0), (50, 100), (100, 0)]),
    ("delete", [(0, 0), (100, 100), (0, 100), (100, 0)]),
    ("left curly brace", brace(mirrored: false)),
    ("right curly brace", brace(mirrored: true)),
    ("star", star()),
    ("pigtail", pigtail()),
  ]

  /// Points on a circle every 10°, angles in degrees.
  static func arc(cx: Double, cy: Double, r: Double, from a: Double, to b: Double) -> [Point] {
    Swift.stride(from: a, through: b, by: (b - a) / 36).map { deg in
      let t = deg * .pi / 180
      return (cx + r * cos(t), cy + r * sin(t))
    }
  }

  /// `{`: in from the top right, down, a point out to the left at the middle, down, out.
  static func brace(mirrored: Bool) -> [Point] {
    // Pairs of numbers, not tuples: a literal of eleven tuples takes the type checker too long.
    let xy: [Double] = [30, 0, 22, 3, 20, 10, 20, 40, 17, 47, 10, 50, 17, 53, 20, 60, 20, 90, 22, 97, 30, 100]
    let p: [Point] = Swift.stride(from: 0, to: xy.count, by: 2).map { (xy[$0], xy[$0 + 1]) }
    return mirrored ? p.map { (40 - $0.x, $0.y) } : p
  }

  /// A five-pointed star drawn in one stroke (the pentagram: every second vertex).
  static func star() -> [Point] {
    (0...5).map { k in
      let t = (-90 + Double(k) * 144) * .pi / 180
      return (50 + 50 * cos(t), 50 + 50 * sin(t))
    }
  }

  /// Up from the lower left, a loop, and out to the right (a prolate cycloid's arch).
  static func pigtail() -> [Point] {
    Swift.stride(from: 0.0, through: 2 * Double.pi, by: Double.pi / 24).map { (s: Double) -> Point in
      let x: Double = s * 16 - 30 * sin(s)
      let y: Double = 50 + 40 * cos(s)
      return (x, y)
    }
  }
}
