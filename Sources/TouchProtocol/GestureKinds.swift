/// A set of gesture kinds, one bit per kind: which recognizers a source has on
/// (`hello.config.recognizers`) and which gestures an observer asked for (`?gestures=`). Both are
/// asked often, at every touch sequence's start and for every gesture delivered; a
/// `Set<GestureKind>` answered by hashing the kind's raw string (a String-backed enum hashes its
/// raw value), many times the cost of a bit test (PERFORMANCE.md has the figure).
public struct GestureKinds: Sendable, Equatable, ExpressibleByArrayLiteral {
  private var bits: UInt8

  /// Every kind.
  public static let all = GestureKinds(GestureKind.allCases)

  /// No kind.
  public init() { bits = 0 }

  public init(_ kinds: some Sequence<GestureKind>) {
    bits = 0
    for kind in kinds { insert(kind) }
  }

  public init(arrayLiteral kinds: GestureKind...) { self.init(kinds) }

  public func contains(_ kind: GestureKind) -> Bool { bits & Self.bit(kind) != 0 }

  public mutating func insert(_ kind: GestureKind) { bits |= Self.bit(kind) }

  private static func bit(_ kind: GestureKind) -> UInt8 {
    switch kind {
    case .tap: 1 << 0
    case .longpress: 1 << 1
    case .pan: 1 << 2
    case .pinch: 1 << 3
    case .rotation: 1 << 4
    case .swipe: 1 << 5
    case .shape: 1 << 6
    }
  }
}
