#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Reading free-form JSON (recordings, the tokens file, what a client receives): a parse through
/// JSONDecoder and typed accessors. Objects come out with their keys sorted, so two parses of
/// equal objects compare equal whatever the order in the text.
extension JSONValue: Decodable {
  public init(from decoder: any Decoder) throws {
    if let object = try? decoder.container(keyedBy: MemberKey.self) {
      self = .object(
        try object.allKeys.sorted { $0.stringValue < $1.stringValue }.map {
          ($0.stringValue, try object.decode(JSONValue.self, forKey: $0))
        })
    } else if var array = try? decoder.unkeyedContainer() {
      var items: [JSONValue] = []
      while !array.isAtEnd { items.append(try array.decode(JSONValue.self)) }
      self = .array(items)
    } else {
      let single = try decoder.singleValueContainer()
      if single.decodeNil() {
        self = .null
      } else if let b = try? single.decode(Bool.self) {
        self = .bool(b)
      } else if let d = try? single.decode(Double.self) {
        self = .number(d)
      } else {
        self = .string(try single.decode(String.self))
      }
    }
  }

  private struct MemberKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  /// One JSON document, or nil if the text is not one.
  public init?(parsing text: some StringProtocol) {
    guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else { return nil }
    self = value
  }

  public var stringValue: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  public var doubleValue: Double? {
    if case .number(let d) = self { return d }
    return nil
  }

  /// The number when it is whole.
  public var intValue: Int? {
    if case .number(let d) = self, d.rounded() == d, abs(d) < 9e15 { return Int(d) }
    return nil
  }

  public var boolValue: Bool? {
    if case .bool(let b) = self { return b }
    return nil
  }

  public var arrayValue: [JSONValue]? {
    if case .array(let a) = self { return a }
    return nil
  }

  /// An object's members, in the order they are held.
  public var members: [(String, JSONValue)]? {
    if case .object(let m) = self { return m }
    return nil
  }

  public var isNull: Bool { self == .null }

  public subscript(index: Int) -> JSONValue? {
    if case .array(let a) = self, a.indices.contains(index) { return a[index] }
    return nil
  }

  /// Compact JSON, for messages.
  public var jsonString: String {
    var w = JSONWriter()
    w.value(self)
    return String(decoding: w.bytes, as: UTF8.self)
  }
}
