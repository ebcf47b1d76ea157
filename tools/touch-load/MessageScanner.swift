/// The server messages an observer or source can get.
enum MessageKind: Int, CaseIterable, Sendable {
  case touches, gesture, scene, source, dropped, welcome, error, other

  var name: String { "\(self)" }
}

/// Pulls the few fields touch-load needs out of a server message without building a JSON
/// tree: this runs for every message every observer gets. It relies only on JSON syntax
/// (the first `"seq":` of a message is its top-level one, as no nested object has a seq).
struct MessageScanner {
  let bytes: UnsafeRawBufferPointer

  var kind: MessageKind {
    guard let v = stringValue(of: "\"type\":\"") else { return .other }
    switch v.count {
    case 7 where equals(v, "touches"): return .touches
    case 7 where equals(v, "gesture"): return .gesture
    case 7 where equals(v, "welcome"): return .welcome
    case 7 where equals(v, "dropped"): return .dropped
    case 5 where equals(v, "scene"): return .scene
    case 5 where equals(v, "error"): return .error
    case 6 where equals(v, "source"): return .source
    default: return .other
    }
  }

  var seq: Int64? { number(after: "\"seq\":").flatMap { Int64(exactly: $0.rounded()) } }
  var t: Double? { number(after: "\"t\":") }
  var count: Int? { number(after: "\"count\":").map { Int($0) } }

  func string(_ key: StaticString) -> String? {
    stringValue(of: key).map {
      String(decoding: UnsafeRawBufferPointer(rebasing: bytes[$0]), as: UTF8.self)
    }
  }

  /// FNV-1a of a string field's bytes: a key for caches that must not allocate.
  func hash(of key: StaticString) -> UInt64? {
    guard let r = stringValue(of: key) else { return nil }
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for i in r {
      h ^= UInt64(bytes[i])
      h = h &* 0x100_0000_01b3
    }
    return h
  }

  /// The byte range of the string value following `key` (which ends with the opening quote).
  private func stringValue(of key: StaticString) -> Range<Int>? {
    guard let start = find(key) else { return nil }
    var i = start
    while i < bytes.count {
      let c = bytes[i]
      if c == UInt8(ascii: "\"") { return start..<i }
      if c == UInt8(ascii: "\\") { i += 1 }
      i += 1
    }
    return nil
  }

  private func number(after key: StaticString) -> Double? {
    guard var i = find(key) else { return nil }
    while i < bytes.count, bytes[i] == 0x20 { i += 1 }
    var negative = false
    if i < bytes.count, bytes[i] == UInt8(ascii: "-") {
      negative = true
      i += 1
    }
    var whole: UInt64 = 0
    var digits = 0
    while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39, digits < 18 {
      whole = whole * 10 + UInt64(bytes[i] - 0x30)
      i += 1
      digits += 1
    }
    guard digits > 0 else { return nil }
    var value = Double(whole)
    if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
      i += 1
      var scale = 0.1
      while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
        value += Double(bytes[i] - 0x30) * scale
        scale /= 10
        i += 1
      }
    }
    if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
      // Rare (the server writes plain decimals); fall back to the standard parser.
      var end = i + 1
      while end < bytes.count,
        (bytes[end] >= 0x30 && bytes[end] <= 0x39) || bytes[end] == 0x2B || bytes[end] == 0x2D
      {
        end += 1
      }
      let start = (find(key) ?? 0)
      return Double(
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
    }
    return negative ? -value : value
  }

  /// The index just past the first occurrence of `key`.
  private func find(_ key: StaticString) -> Int? {
    let n = key.utf8CodeUnitCount
    guard n > 0, bytes.count >= n else { return nil }
    let k = key.utf8Start
    let first = k[0]
    var i = 0
    let last = bytes.count - n
    while i <= last {
      if bytes[i] == first {
        var j = 1
        while j < n, bytes[i + j] == k[j] { j += 1 }
        if j == n { return i + n }
      }
      i += 1
    }
    return nil
  }

  private func equals(_ r: Range<Int>, _ s: StaticString) -> Bool {
    guard r.count == s.utf8CodeUnitCount else { return false }
    let k = s.utf8Start
    for (j, i) in r.enumerated() where bytes[i] != k[j] { return false }
    return true
  }
}
