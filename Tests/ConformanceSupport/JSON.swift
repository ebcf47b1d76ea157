import Foundation
import TouchProtocol
import TouchRelayClient

/// A plain JSON tree for the tests: vectors in, wire messages out, compared field by field.
public enum JSON: Encodable, Equatable, Sendable, CustomStringConvertible {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSON])
  case object([String: JSON])

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    switch self {
    case .null: try c.encodeNil()
    case .bool(let b): try c.encode(b)
    case .number(let n): try c.encode(n)
    case .string(let s): try c.encode(s)
    case .array(let a): try c.encode(a)
    case .object(let o): try c.encode(o)
    }
  }

  /// Through Foundation's `JSONSerialization` (the client library's reader), not a `Decodable`
  /// conformance: one learns a value's kind by failing to decode it as each kind before, and
  /// under swift-testing every throw captures a backtrace. Tests that read a few thousand
  /// messages so took seconds on the cooperative pool, which every other test was waiting for.
  public static func parse(_ bytes: [UInt8]) throws -> JSON {
    JSON(try JSONValue.parse(Data(bytes)))
  }

  init(_ value: JSONValue) {
    switch value {
    case .null: self = .null
    case .bool(let b): self = .bool(b)
    case .number(let n): self = .number(n)
    case .string(let s): self = .string(s)
    case .array(let a): self = .array(a.map(JSON.init))
    case .object(let members):
      self = .object(Dictionary(members.map { ($0.0, JSON($0.1)) }, uniquingKeysWith: { _, last in last }))
    }
  }

  public var bytes: [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return Array((try? encoder.encode(self)) ?? Data())
  }

  public subscript(key: String) -> JSON? {
    if case .object(let o) = self { return o[key] }
    return nil
  }

  public var number: Double? {
    if case .number(let n) = self { return n }
    return nil
  }

  public var array: [JSON]? {
    if case .array(let a) = self { return a }
    return nil
  }

  public var string: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  /// The object without `key` (anything else unchanged).
  public func removing(_ key: String) -> JSON {
    guard case .object(var o) = self else { return self }
    o[key] = nil
    return .object(o)
  }

  public var description: String { String(decoding: bytes, as: UTF8.self) }
}
