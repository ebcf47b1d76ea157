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
}
