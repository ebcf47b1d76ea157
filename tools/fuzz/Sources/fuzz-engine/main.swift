import CFuzzerDriver
import Foundation
import GestureEngine
import TouchProtocol

// libFuzzer target: bytes become a sequence of hello / frame / advance / control / close calls
// on `SourceEngine`, passed through the same gates the server uses (`MessageDecoder` for
// hellos and JSON messages, the decoder's frame rules, `SourceValidator` for seq and t), so
// the engine only sees what a live source could make it see. Checked with a trap:
// - every gesture that began gets exactly one ended or cancelled by the end of `cancelAll`,
//   `changed` only between them, nothing after them;
// - no event and no scene state carries a non-finite number;
// - after `cancelAll` no finger is down and no timer is pending;
// - no crash, no hang (libFuzzer's -timeout), no memory error (ASan).
//
// Input format (every read past the end yields 0, so any byte string is a valid program):
//   hello, then ops until the input ends or a `close` op; `cancelAll` always runs at the end.
//   hello   := mode (even: built from bytes; odd: u16 length + JSON text through MessageDecoder)
//   op      := byte % 8: 0-3 frame, 4 advance, 5 hello, 6 control, 7 close
//   frame   := mode (bit 0: JSON text as above) | seq mode, t mode, count, touches
//   number  := one byte (small values) or a tag for an extreme / raw 8-byte double (see `number`)
// `fuzz-engine --from-vector VECTOR.json OUT` writes a protocol/vectors file in this format
// (JSON messages, raw doubles), which is how the corpus is seeded.

func check(_ ok: Bool, _ what: @autoclosure () -> String) {
  if !ok { fatalError("invariant broken: \(what())") }
}

struct Input {
  let bytes: UnsafeRawBufferPointer
  var i = 0
  var atEnd: Bool { i >= bytes.count }

  mutating func u8() -> UInt8 {
    guard i < bytes.count else { return 0 }
    defer { i += 1 }
    return bytes[i]
  }

  mutating func u16() -> Int { Int(u8()) | Int(u8()) << 8 }

  mutating func raw64() -> UInt64 {
    var v: UInt64 = 0
    for k in 0..<8 { v |= UInt64(u8()) << (8 * UInt64(k)) }
    return v
  }

  mutating func text() -> [UInt8] {
    let n = min(u16(), bytes.count - min(i, bytes.count))
    defer { i += n }
    return Array(bytes[i..<(i + n)])
  }

  /// A finite number: small grid values mostly, extremes by tag, or any finite double.
  mutating func number() -> Double {
    let b = u8()
    switch b {
    case 0..<0xE0: return Double(b) * 4
    case 0xE0: return -Double(u8()) * 4
    case 0xE1: return Double(u8()) / 64
    case 0xE2: return 1e308
    case 0xE3: return -1e308
    case 0xE4: return .greatestFiniteMagnitude
    case 0xE5: return -.greatestFiniteMagnitude
    case 0xE6: return .leastNonzeroMagnitude
    case 0xE7: return 1e15
    case 0xE8: return 9_007_199_254_740_994
    case 0xE9: return 1e-300
    case 0xEA: return 0.1
    case 0xEB: return 1e200
    case 0xEC: return -0.0
    case 0xED: return 1e16 + Double(u8())
    case 0xF0:
      let v = Double(bitPattern: raw64())
      return v.isFinite ? v : 0
    default: return Double(b) - 0xF0
    }
  }
}

/// Encodes the bytes `Input` reads (the seed converter's half).
struct Output {
  var bytes: [UInt8] = []
  mutating func u8(_ v: UInt8) { bytes.append(v) }
  mutating func u16(_ v: Int) {
    bytes.append(UInt8(v & 0xFF))
    bytes.append(UInt8(v >> 8 & 0xFF))
  }
  mutating func number(_ v: Double) {
    u8(0xF0)
    for k in 0..<8 { u8(UInt8(truncatingIfNeeded: v.bitPattern >> (8 * UInt64(k)))) }
  }
  mutating func text(_ t: [UInt8]) {
    u16(t.count)
    bytes += t
  }
}

let decoder = MessageDecoder()
let sceneChoices: [String?] = [nil, "flatcube", "zoom", "sketch", "tetris"]
let recognizerNames = GestureKind.allCases.map(\.rawValue)
let presetChoices: [String?] = [nil] + GesturePreset.allCases.map(\.rawValue) + ["windows"]

/// A hello as JSON, built from bytes, so the decoder's checks (ranges, config) apply.
func helloJSON(_ input: inout Input) -> [UInt8] {
  var w = JSONWriter()
  w.beginObject()
  w.key("type")
  w.string("hello")
  w.key("device")
  w.beginObject()
  w.key("name")
  w.string("fuzz")
  w.key("width")
  w.number(input.number())
  w.key("height")
  w.number(input.number())
  w.endObject()
  if let scene = sceneChoices[Int(input.u8()) % sceneChoices.count] {
    w.key("scene")
    w.string(scene)
  }
  let regions = Int(input.u8() % 5)
  if regions > 0 {
    w.key("regions")
    w.beginArray()
    for r in 0..<(regions - 1) {
      w.beginObject()
      w.key("id")
      w.string("r\(r)")
      for k in ["x", "y", "width", "height"] {
        w.key(escaping: k)
        w.number(input.number())
      }
      w.endObject()
    }
    w.endArray()
  }
  let flags = input.u8()
  if flags != 0 {
    w.key("config")
    w.beginObject()
    if flags & 1 != 0 {
      // One byte: its low bit the tap mode, the others a preset (none, each name, or a name
      // the decoder refuses).
      let b = input.u8()
      w.key("tapMode")
      w.string(b % 2 == 0 ? "immediate" : "deferred")
      if let preset = presetChoices[Int(b >> 1) % presetChoices.count] {
        w.key("preset")
        w.string(preset)
      }
    }
    if flags & 2 != 0 {
      w.key("maxFingers")
      w.int(Int64(input.u8() % 12))
    }
    if flags & 4 != 0 {
      let mask = input.u8()
      w.key("recognizers")
      w.beginArray()
      for (k, name) in recognizerNames.enumerated() where mask & (1 << k) != 0 { w.string(name) }
      w.endArray()
    }
    if flags & 8 != 0 {
      w.key("tapMaxCount")
      w.int(Int64(input.u8() % 5))
      w.key("multiFingerTapMaxCount")
      w.int(Int64(input.u8() % 4))
    }
    let numeric: [(UInt8, [String])] = [
      (16, ["tapMaxDuration", "tapMaxMovement", "multiTapInterval", "multiTapDistance"]),
      (32, ["longPressDuration", "longPressMaxMovement", "panThreshold"]),
      (64, ["swipeMinDistance", "swipeMinVelocity", "swipeVelocityWindow"]),
      (128, ["pinchThreshold", "rotationThreshold", "panMinTouches", "panMaxTouches"]),
    ]
    for (bit, names) in numeric where flags & bit != 0 {
      for name in names {
        w.key(escaping: name)
        if name.hasSuffix("Touches") { w.int(Int64(input.u8() % 5)) } else { w.number(input.number()) }
      }
    }
    w.endObject()
  }
  w.endObject()
  return w.bytes
}

func readHello(_ input: inout Input) -> Hello? {
  let mode = input.u8()
  let json = mode & 1 == 0 ? helloJSON(&input) : input.text()
  if case .success(.hello(let h)) = decoder.decode(json) { return h }
  return nil
}

/// A frame as the decoder would pass it, or nil for one it refuses.
func readFrame(_ input: inout Input, lastSeq: Int64, lastT: Double) -> Frame? {
  let mode = input.u8()
  if mode & 1 != 0 {
    if case .success(.frame(let f)) = decoder.decode(input.text()) { return f }
    return nil
  }
  let seq: Int64
  switch mode >> 1 & 3 {
  case 0, 3: seq = lastSeq + 1
  case 1: seq = lastSeq + Int64(input.u8())  // 0: a repeated seq
  default: seq = Int64(input.u8())  // may go back
  }
  let t = mode & 8 == 0 ? lastT + input.number() : input.number()
  guard t.isFinite else { return nil }  // the decoder refuses overflow
  let count = Int(input.u8() % 12)
  var touches: [TouchPoint] = []
  let phases = TouchPhase.allCases
  for _ in 0..<count {
    let id = Int64(input.u8() % 16)
    let phase = phases[Int(input.u8()) % phases.count]
    let x = input.number()
    let y = input.number()
    let extras = input.u8()
    touches.append(
      TouchPoint(
        id: id, phase: phase, x: x, y: y, force: extras & 1 != 0 ? input.number() : nil,
        radiusX: extras & 2 != 0 ? input.number() : nil, radiusY: extras & 4 != 0 ? input.number() : nil))
  }
  // The decoder's rules: distinct ids, a whole frame refused otherwise.
  guard Set(touches.map(\.id)).count == touches.count else { return nil }
  return Frame(seq: seq, t: t, touches: touches)
}

func readControl(_ input: inout Input) -> Control? {
  let mode = input.u8()
  if mode & 1 != 0 {
    if case .success(.control(let c)) = decoder.decode(input.text()) { return c }
    return nil
  }
  switch mode >> 1 % 6 {
  case 0: return Control(recognizeAny: true)
  case 1: return Control(recognizeAny: false)
  case 2: return Control(action: "reset")
  case 3: return Control(action: "clear")
  case 4: return Control(action: "delete")
  default: return Control(action: "explode")
  }
}

/// Checks every number of an event or scene, and the life cycle of gesture ids.
struct Checker {
  var open: Set<Int> = []
  var closed: Set<Int> = []

  static func finite(_ v: JSONValue, _ path: String) {
    switch v {
    case .number(let d): check(d.isFinite, "non-finite \(d) in scene state at \(path)")
    case .array(let a): for (k, e) in a.enumerated() { finite(e, "\(path)[\(k)]") }
    case .object(let members): for (k, e) in members { finite(e, "\(path).\(k)") }
    default: break
    }
  }

  mutating func take(_ out: EngineOutput) {
    if let s = out.scene { Self.finite(s, "scene") }
    for e in out.events {
      var numbers = [e.t, e.x, e.y]
      if let v = e.translation { numbers += [v.x, v.y] }
      if let v = e.velocity { numbers += [v.x, v.y] }
      numbers += [e.scale, e.rotation, e.rate].compactMap { $0 }
      for f in e.fingers ?? [] { numbers += [f.x, f.y] }
      check(numbers.allSatisfy(\.isFinite), "non-finite number in \(e)")
      check(!closed.contains(e.id), "event after the end of gesture \(e.id): \(e)")
      switch e.state {
      case .began: check(open.insert(e.id).inserted, "gesture \(e.id) began twice")
      case .changed: check(open.contains(e.id), "changed outside began..end: \(e)")
      case .ended, .cancelled:
        check(open.remove(e.id) != nil, "end of a gesture that never began: \(e)")
        closed.insert(e.id)
      case .recognized:
        check(!open.contains(e.id), "recognized while open: \(e)")
        closed.insert(e.id)
      }
    }
  }
}

let defaultHello = Hello(device: Device(name: "fuzz", width: 390, height: 844))

func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  var input = Input(bytes: UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
  var first = readHello(&input) ?? defaultHello
  if let s = first.scene, !SourceEngine.sceneNames.contains(s) { first.scene = nil }  // refused by the server
  var engine = SourceEngine(hello: first, maxFingers: 10)
  var checker = Checker()
  if let s = engine.sceneState { Checker.finite(s, "scene") }
  var validator = SourceValidator()
  _ = validator.accept(.hello(first))
  var now = -Double.greatestFiniteMagnitude  // the latest device time the engine saw
  var steps = 0
  while !input.atEnd, steps < 4096 {
    steps += 1
    switch input.u8() % 8 {
    case 0...3:
      guard
        let f = readFrame(&input, lastSeq: validator.lastSeq ?? 0, lastT: validator.lastT ?? 0),
        validator.accept(.frame(f)) == nil
      else { continue }
      now = max(now, f.t)
      checker.take(engine.process(f))
    case 4:
      // The server's timer: advance to the engine's deadline; or a time that has passed.
      if input.u8() % 2 == 0 {
        if let d = engine.nextDeadline { checker.take(engine.advance(to: d)) }
      } else {
        let t = input.number()
        guard t >= now else { continue }
        now = t
        checker.take(engine.advance(to: t))
      }
    case 5:
      guard let h = readHello(&input) else { continue }
      checker.take(engine.update(hello: h))
    case 6:
      guard let c = readControl(&input) else { continue }
      if case .success(let out) = engine.control(c) { checker.take(out) }
    default:
      input.i = input.bytes.count
    }
  }
  let end = max(now, validator.lastT ?? 0)
  checker.take(engine.cancelAll(at: end.isFinite ? end : 0))
  check(checker.open.isEmpty, "gestures left open after cancelAll: \(checker.open.sorted())")
  check(engine.fingersDown == 0, "\(engine.fingersDown) fingers down after cancelAll")
  return 0
}

/// protocol/vectors/NAME.json -> the binary program above.
func convert(vector path: String, to out: String) throws {
  let root = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
  guard let v = root as? [String: Any], let hello = v["hello"] as? [String: Any] else { return }
  func json(_ type: String, _ body: [String: Any]) throws -> [UInt8] {
    var b = body
    b["type"] = type
    return Array(try JSONSerialization.data(withJSONObject: b, options: [.sortedKeys]))
  }
  var o = Output()
  o.u8(1)
  o.text(try json("hello", hello))
  for step in v["steps"] as? [[String: Any]] ?? [] {
    if let f = step["frame"] as? [String: Any] {
      o.u8(0)
      o.u8(1)
      o.text(try json("frame", f))
    } else if let samples = step["frames"] as? [[String: Any]] {
      // The engine takes a `frames` message's samples one by one, as frames.
      for f in samples {
        o.u8(0)
        o.u8(1)
        o.text(try json("frame", f))
      }
    } else if let t = (step["advance"] as? NSNumber)?.doubleValue {
      o.u8(4)
      o.u8(1)
      o.number(t)
    } else if let h = step["hello"] as? [String: Any] {
      o.u8(5)
      o.u8(1)
      o.text(try json("hello", h))
    } else if let c = step["control"] as? [String: Any] {
      o.u8(6)
      o.u8(1)
      o.text(try json("control", c))
    } else if step["close"] != nil {
      o.u8(7)
    }
  }
  try Data(o.bytes).write(to: URL(fileURLWithPath: out))
}

let args = CommandLine.arguments
if args.count == 4, args[1] == "--from-vector" {
  do {
    try convert(vector: args[2], to: args[3])
    exit(0)
  } catch {
    print("\(args[2]): \(error)")
    exit(1)
  }
}
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOne(data, size) })
