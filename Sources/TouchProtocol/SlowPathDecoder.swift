#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// `hello` and `control` are rare, so they go through Foundation's JSONDecoder; its errors
/// are mapped onto the protocol's codes with the field path in the message.
enum SlowPathDecoder {
  static func hello(_ bytes: UnsafeRawBufferPointer) -> Result<Hello, ProtocolError> {
    decode(Hello.self, bytes).flatMap { hello in
      HelloValidator.validate(hello).map { .failure($0) } ?? .success(hello)
    }
  }

  static func control(_ bytes: UnsafeRawBufferPointer) -> Result<Control, ProtocolError> {
    decode(Control.self, bytes)
  }

  private static func decode<T: Decodable>(_ type: T.Type, _ bytes: UnsafeRawBufferPointer) -> Result<
    T, ProtocolError
  > {
    do {
      return .success(try JSONDecoder().decode(T.self, from: Data(bytes)))
    } catch let DecodingError.keyNotFound(key, context) {
      return .failure(ProtocolError(.missingField, "missing field '\(path(context.codingPath + [key]))'"))
    } catch let DecodingError.typeMismatch(expected, context) {
      return .failure(
        ProtocolError(.wrongType, "'\(path(context.codingPath))' must be \(describe(expected))"))
    } catch let DecodingError.valueNotFound(expected, context) {
      return .failure(
        ProtocolError(.wrongType, "'\(path(context.codingPath))' must be \(describe(expected)), not null"))
    } catch let DecodingError.dataCorrupted(context) {
      return .failure(
        ProtocolError(.badValue, "'\(path(context.codingPath))': \(context.debugDescription)"))
    } catch {
      return .failure(ProtocolError(.badJSON, "could not decode: \(error)"))
    }
  }

  private static func path(_ keys: [any CodingKey]) -> String {
    var out = ""
    for key in keys {
      if let i = key.intValue {
        out += "[\(i)]"
      } else {
        out += out.isEmpty ? key.stringValue : ".\(key.stringValue)"
      }
    }
    return out.isEmpty ? "(message)" : out
  }

  private static func describe(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: return "a string"
    case is Double.Type, is Int.Type: return "a number"
    case is Bool.Type: return "true or false"
    default:
      let name = "\(type)"
      if name.hasPrefix("Array") { return "an array" }
      if name.hasPrefix("Dictionary") { return "an object" }
      return "an object"
    }
  }
}

/// Range checks JSONDecoder cannot express.
enum HelloValidator {
  static let maxRegions = 64
  static let maxNameLength = 256

  static func validate(_ hello: Hello) -> ProtocolError? {
    let d = hello.device
    if d.name.utf8.count > maxNameLength {
      return ProtocolError(.badValue, "device.name is longer than \(maxNameLength) bytes")
    }
    if !(d.width > 0 && d.width.isFinite && d.height > 0 && d.height.isFinite) {
      return ProtocolError(.badValue, "device.width and device.height must be positive")
    }
    if let regions = hello.regions {
      if regions.count > maxRegions {
        return ProtocolError(.badValue, "at most \(maxRegions) regions")
      }
      for (i, r) in regions.enumerated() {
        if r.id.isEmpty || r.id.utf8.count > 64 {
          return ProtocolError(.badValue, "regions[\(i)].id must be 1 to 64 bytes")
        }
        if !(r.x.isFinite && r.y.isFinite && r.width >= 0 && r.width.isFinite && r.height >= 0 && r.height.isFinite) {
          return ProtocolError(.badValue, "regions[\(i)] needs finite x, y and non-negative width, height")
        }
      }
    }
    if let c = hello.config {
      let positives: [(String, Double?)] = [
        ("tapMaxDuration", c.tapMaxDuration), ("tapMaxMovement", c.tapMaxMovement),
        ("multiTapInterval", c.multiTapInterval), ("multiTapDistance", c.multiTapDistance),
        ("longPressDuration", c.longPressDuration), ("longPressMaxMovement", c.longPressMaxMovement),
        ("panThreshold", c.panThreshold), ("swipeMinDistance", c.swipeMinDistance),
        ("swipeMinVelocity", c.swipeMinVelocity), ("swipeVelocityWindow", c.swipeVelocityWindow),
      ]
      for (name, value) in positives {
        if let v = value, !(v >= 0 && v.isFinite && v <= 3_600_000) {
          return ProtocolError(.badValue, "config.\(name) must be a number from 0 to 3600000")
        }
      }
      for (name, value) in [("pinchThreshold", c.pinchThreshold), ("rotationThreshold", c.rotationThreshold)] {
        if let v = value, !(v >= 0 && v.isFinite && v <= 100_000) {
          return ProtocolError(.badValue, "config.\(name) must be a number from 0 to 100000")
        }
      }
      for (name, value) in [("tapMaxCount", c.tapMaxCount), ("multiFingerTapMaxCount", c.multiFingerTapMaxCount)] {
        if let v = value, !(1...10).contains(v) {
          return ProtocolError(.badValue, "config.\(name) must be from 1 to 10")
        }
      }
      for (name, value) in [
        ("panMinTouches", c.panMinTouches), ("panMaxTouches", c.panMaxTouches), ("maxFingers", c.maxFingers),
      ] {
        if let v = value, !(1...20).contains(v) {
          return ProtocolError(.badValue, "config.\(name) must be from 1 to 20")
        }
      }
      if let preset = c.preset, GesturePreset(rawValue: preset) == nil {
        return ProtocolError(.badValue, "config.preset must be \(GesturePreset.listed)")
      }
      if let mode = c.tapMode, mode != "deferred", mode != "immediate" {
        return ProtocolError(.badValue, "config.tapMode must be \"deferred\" or \"immediate\"")
      }
      if let e = ShapeTemplate.validate(strokeGap: c.shapeStrokeGap, minScore: c.shapeMinScore) { return e }
      if let shapes = c.shapes, let e = ShapeTemplate.validate(shapes) { return e }
      if let e = PalmConfig.validate(c.palm) { return e }
    }
    return nil
  }
}
