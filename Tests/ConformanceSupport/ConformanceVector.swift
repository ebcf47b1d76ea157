import Foundation
import TouchProtocol

/// One conformance vector (protocol/vectors/README.md describes the format), loaded from
/// protocol/vectors. Free of any test framework so every runner can share it.
public struct ConformanceVector: Sendable, CustomStringConvertible {
  public let file: String
  public let json: JSON

  public init(file: String, json: JSON) {
    self.file = file
    self.json = json
  }

  public var name: String {
    if case .string(let s)? = json["name"] { return s }
    return file
  }
  public var description: String { file }
  public var tolerance: Double { json["tolerance"]?.number ?? 1e-6 }
  public var steps: [JSON] { json["steps"]?.array ?? [] }
  public var expect: JSON { json["expect"] ?? .object([:]) }
  /// `predict=MS`: the vector's observer asks for predicted positions.
  public var predict: Int? { json["predict"]?.number.map { Int($0) } }
  /// The server's finger limit the vector runs under.
  public var maxFingers: Int { json["maxFingers"]?.number.map { Int($0) } ?? Limits().maxFingers }

  public static var directory: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("protocol/vectors")
  }

  public static func loadAll() -> [ConformanceVector] {
    let dir = directory
    let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
    return names.filter { $0.hasSuffix(".json") }.sorted().map { name in
      let data = (try? Data(contentsOf: dir.appendingPathComponent(name))) ?? Data()
      let json = (try? JSON.parse(Array(data))) ?? .null
      return ConformanceVector(file: name, json: json)
    }
  }

  /// The source's first `hello`, decoded, and as sent on the wire.
  public func hello() throws -> (hello: Hello, message: JSON) {
    let (decoded, wire) = try VectorStep.clientMessage("hello", json["hello"])
    guard case .hello(let hello) = decoded else { throw VectorRunnerError("hello") }
    return (hello, wire)
  }

  /// The steps, decoded with the protocol's own MessageDecoder.
  public func parsedSteps() throws -> [VectorStep] {
    try steps.map(VectorStep.init)
  }
}

/// One step of a vector: what the source sends, or a moment of the server's clock.
public struct VectorStep: Sendable {
  public enum Kind: Sendable {
    case frame(Frame)
    /// Several samples in one `frames` message, oldest first, each processed as a frame.
    case frames([Frame])
    /// The server's timer runs at this device time.
    case advance(Double)
    case control(Control)
    case hello(Hello)
    /// The connection closes at this device time.
    case close(Double)
  }

  public let kind: Kind
  /// The client message exactly as sent on the wire (its `type` added); nil for `advance`
  /// and `close`.
  public let message: JSON?

  public init(_ step: JSON) throws {
    if let t = step["advance"]?.number {
      (kind, message) = (.advance(t), nil)
    } else if let t = step["close"]?.number {
      (kind, message) = (.close(t), nil)
    } else if let samples = step["frames"] {
      // The step lists the samples; on the wire they are the `frames` member.
      let (decoded, wire) = try Self.clientMessage("frames", .object(["frames": samples]))
      guard case .frames(let results) = decoded else { throw VectorRunnerError("frames") }
      kind = .frames(
        try results.map { r in
          try r.mapError { VectorRunnerError("a sample does not decode: \($0.code.rawValue) \($0.message)") }.get()
        })
      message = wire
    } else if let type = ["frame", "control", "hello"].first(where: { step[$0] != nil }) {
      let (decoded, wire) = try Self.clientMessage(type, step[type])
      switch decoded {
      case .frame(let f): kind = .frame(f)
      case .frames: throw VectorRunnerError("frames")
      case .control(let c): kind = .control(c)
      case .hello(let h): kind = .hello(h)
      }
      message = wire
    } else {
      throw VectorRunnerError("unknown step \(step)")
    }
  }

  /// The frame's device time, for a frame; the first sample's, for `frames`.
  public var frameTime: Double? {
    if case .frame(let f) = kind { return f.t }
    if case .frames(let fs) = kind { return fs.first?.t }
    return nil
  }

  /// The device time of the latest frame this step sends, if it sends any.
  public var latestFrameTime: Double? {
    if case .frames(let fs) = kind { return fs.last?.t }
    return frameTime
  }

  /// The frames this step sends, in order.
  public var frames: [Frame] {
    switch kind {
    case .frame(let f): return [f]
    case .frames(let fs): return fs
    default: return []
    }
  }

  /// Decodes one client message given as a JSON object without its `type`; returns it with
  /// its wire form.
  static func clientMessage(_ type: String, _ body: JSON?) throws -> (ClientMessage, JSON) {
    guard case .object(var obj)? = body else {
      throw VectorRunnerError("\(type) must be an object")
    }
    obj["type"] = .string(type)
    let wire = JSON.object(obj)
    switch MessageDecoder().decode(wire.bytes) {
    case .success(let m): return (m, wire)
    case .failure(let e):
      throw VectorRunnerError("\(type) does not decode: \(e.code.rawValue) \(e.message)")
    }
  }
}

public struct VectorRunnerError: Error, CustomStringConvertible {
  public let description: String
  public init(_ d: String) { description = d }
}
