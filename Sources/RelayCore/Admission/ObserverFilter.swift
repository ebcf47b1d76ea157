import TouchProtocol

/// What an observer asked to receive (`?raw=1&source=ID&gestures=tap,pinch`).
public struct ObserverFilter: Equatable, Sendable {
  public var raw = false
  public var source: String?
  public var gestures: GestureKinds?
  /// `format=tuio`: touches as TUIO 1.1 bundles and gestures as `/touchrelay/gesture`, both
  /// OSC in binary messages (the protocol's notices stay JSON). Implies `raw`. `format=tuio2`:
  /// the same with TUIO 2.0 bundles, which carry a pointer's pressure and radius.
  public var format = Format.json
  /// `predict=MS` (1 to 100): each moving touch of its `touches` messages also carries where
  /// it is expected MS ms after the frame (`predicted`). Implies `raw`.
  public var predict: Int?

  public enum Format: String, Sendable {
    case json, tuio, tuio2
  }

  public init(raw: Bool = false, source: String? = nil, gestures: GestureKinds? = nil) {
    self.raw = raw
    self.source = source
    self.gestures = gestures
  }

  public static func parse(_ args: [(String, String)]) -> Result<ObserverFilter, RequestTarget.Refusal> {
    var f = ObserverFilter()
    for (name, value) in args {
      switch name {
      case "raw":
        guard value == "1" || value == "0" || value == "true" || value == "false" else {
          return .failure(.badRequest("raw must be 1 or 0"))
        }
        f.raw = value == "1" || value == "true"
      case "source":
        guard !value.isEmpty, value.utf8.count <= 64 else { return .failure(.badRequest("bad source id")) }
        f.source = value
      case "gestures":
        var set = GestureKinds()
        for name in value.split(separator: ",") {
          guard let g = GestureKind(rawValue: String(name)) else {
            let known = GestureKind.allCases.map(\.rawValue).joined(separator: ", ")
            return .failure(.badRequest("unknown gesture '\(name.prefix(32))'; known: \(known)"))
          }
          set.insert(g)
        }
        f.gestures = set
      case "format":
        guard let format = Format(rawValue: value) else {
          return .failure(.badRequest("format must be json, tuio or tuio2"))
        }
        f.format = format
      case "predict":
        guard value.utf8.count <= 3, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
          let ms = Int(value), (1...100).contains(ms)
        else { return .failure(.badRequest("predict must be a whole number of ms from 1 to 100")) }
        f.predict = ms
      case "token":
        // Checked by the access policy before the upgrade.
        continue
      default:
        return .failure(.badRequest("unknown query parameter '\(name.prefix(32))'"))
      }
    }
    if f.format != .json { f.raw = true }
    if f.predict != nil {
      guard f.format == .json else {
        return .failure(.badRequest("predict is for JSON observers, not format=\(f.format.rawValue)"))
      }
      f.raw = true
    }
    return .success(f)
  }

  public func wants(source id: String) -> Bool { source == nil || source == id }

  public func wants(_ gesture: GestureKind) -> Bool { gestures?.contains(gesture) ?? true }
}
