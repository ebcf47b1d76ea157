/// One argument of an OSC 1.0 message, by its type tag. OSC's optional types beyond these
/// (`c`, `r`, `m`, `I`, arrays, ...) are refused by the decoder: TUIO uses none of them.
public enum OSCArgument: Sendable, Equatable {
  /// `i`: 32-bit big-endian two's complement.
  case int32(Int32)
  /// `f`: IEEE 754 single, finite (the decoder refuses NaN and infinities).
  case float32(Float)
  /// `s`: UTF-8 text (OSC says ASCII; UTF-8 is a superset), NUL-terminated and padded.
  case string(String)
  /// `b`: a size-counted byte string, padded.
  case blob([UInt8])
  /// `h`: 64-bit big-endian two's complement.
  case int64(Int64)
  /// `d`: IEEE 754 double, finite.
  case double(Double)
  /// `t`: an NTP time tag (seconds since 1900 in the high 32 bits, fraction in the low 32).
  case timeTag(UInt64)
  /// `T` and `F`: no bytes, the tag is the value.
  case bool(Bool)
  /// `N`: no bytes.
  case null

  /// The type tag character this argument is written with.
  public var tag: UInt8 {
    switch self {
    case .int32: return UInt8(ascii: "i")
    case .float32: return UInt8(ascii: "f")
    case .string: return UInt8(ascii: "s")
    case .blob: return UInt8(ascii: "b")
    case .int64: return UInt8(ascii: "h")
    case .double: return UInt8(ascii: "d")
    case .timeTag: return UInt8(ascii: "t")
    case .bool(let b): return b ? UInt8(ascii: "T") : UInt8(ascii: "F")
    case .null: return UInt8(ascii: "N")
    }
  }

  /// A number as a Double (`i`, `f`, `h`, `d`), else nil: TUIO senders differ in which they use.
  public var number: Double? {
    switch self {
    case .int32(let v): return Double(v)
    case .float32(let v): return Double(v)
    case .int64(let v): return Double(v)
    case .double(let v): return v
    default: return nil
    }
  }

  /// An integer (`i`, `h`), else nil.
  public var integer: Int64? {
    switch self {
    case .int32(let v): return Int64(v)
    case .int64(let v): return v
    default: return nil
    }
  }
}
