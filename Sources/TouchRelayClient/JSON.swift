import Foundation
import TouchProtocol

extension JSONValue {
  /// Parses one JSON document with Foundation. Objects come out with their keys sorted,
  /// so two parses of equal objects compare equal whatever the order on the wire.
  public static func parse(_ text: String) throws -> JSONValue {
    try parse(Data(text.utf8))
  }

  public static func parse(_ data: Data) throws -> JSONValue {
    let object: Any
    do {
      object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    } catch {
      throw WebSocketClientError.notJSON(String(decoding: data, as: UTF8.self))
    }
    return convert(object)
  }

  private static func convert(_ any: Any) -> JSONValue {
    switch any {
    case is NSNull: return .null
    case let s as String: return .string(s)
    case let n as NSNumber:
      // JSONSerialization returns true/false as NSNumber too; only their objCType is "c".
      if String(cString: n.objCType) == "c" { return .bool(n.boolValue) }
      return .number(n.doubleValue)
    case let a as [Any]: return .array(a.map(convert))
    case let d as [String: Any]:
      return .object(d.keys.sorted().map { ($0, convert(d[$0]!)) })
    default: return .null
    }
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

  public var isNull: Bool { self == .null }

  public subscript(index: Int) -> JSONValue? {
    if case .array(let a) = self, a.indices.contains(index) { return a[index] }
    return nil
  }

  /// Compact JSON, for failure messages.
  public var jsonString: String {
    var w = JSONWriter()
    w.value(self)
    return String(decoding: w.bytes, as: UTF8.self)
  }
}
