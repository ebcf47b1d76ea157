import TouchProtocol

/// What an observer asks for, sent as the URL's query (protocol §1, "Observer query parameters").
public struct ObserverOptions: Sendable, Equatable {
  /// Also receive `touches`, the raw mirror of every frame.
  public var raw: Bool
  /// Only messages about this source id.
  public var source: String?
  /// Only these gesture kinds; nil for all.
  public var gestures: [GestureKind]?
  /// Each moving touch's predicted position this many ms ahead (1 to 100; implies `raw`), in
  /// `TouchesMessage.predicted`; the server refuses other values with HTTP 400.
  public var predict: Int?

  public init(raw: Bool = false, source: String? = nil, gestures: [GestureKind]? = nil, predict: Int? = nil) {
    self.raw = raw
    self.source = source
    self.gestures = gestures
    self.predict = predict
  }

  /// `raw=1&source=s1&gestures=tap,pan&predict=33`, empty for the defaults.
  public var query: String {
    var items: [String] = []
    if raw { items.append("raw=1") }
    if let source { items.append("source=\(Self.escape(source))") }
    if let gestures { items.append("gestures=" + gestures.map(\.rawValue).joined(separator: ",")) }
    if let predict { items.append("predict=\(predict)") }
    return items.joined(separator: "&")
  }

  /// Percent-encodes all but unreserved characters (RFC 3986 §2.3).
  static func escape(_ s: String) -> String {
    var out = ""
    for byte in s.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
        UInt8(ascii: "~"):
        out.append(Character(UnicodeScalar(byte)))
      default:
        out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
      }
    }
    return out
  }
}

extension String {
  fileprivate func leftPadded(to n: Int) -> String {
    count >= n ? self : String(repeating: "0", count: n - count) + self
  }
}
