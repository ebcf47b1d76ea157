/// What a peer's close frame says, and whether RFC 6455 allows it (§5.5.1, §7.4): no payload,
/// or a code of 1000–1003, 1007–1011 or 3000–4999 followed by a UTF-8 reason. Anything else is
/// answered with the server's own close instead of the echo.
public enum CloseFrame: Sendable, Equatable {
  /// No code (an empty payload): echoed as it is.
  case empty
  /// A code the RFC allows and a UTF-8 reason.
  case valid(code: UInt16)
  /// A 1-byte payload, or a code no endpoint may send: answered with 1002.
  case protocolError
  /// A reason that is not UTF-8: answered with 1007.
  case invalidReason(code: UInt16)

  public init(payload: UnsafeRawBufferPointer) {
    guard !payload.isEmpty else {
      self = .empty
      return
    }
    guard payload.count >= 2 else {
      self = .protocolError
      return
    }
    let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
    guard Self.isSendable(code) else {
      self = .protocolError
      return
    }
    self =
      UTF8Validator.isValid(UnsafeRawBufferPointer(rebasing: payload[2...]))
      ? .valid(code: code) : .invalidReason(code: code)
  }

  /// Codes an endpoint may put in a close frame: the defined ones meant for the wire, and the
  /// ranges for libraries (3000–3999) and applications (4000–4999).
  public static func isSendable(_ code: UInt16) -> Bool {
    switch code {
    case 1000...1003, 1007...1011, 3000...4999: return true
    default: return false
    }
  }

  /// The code the peer sent, if it may be trusted.
  public var code: UInt16? {
    switch self {
    case .valid(let code): return code
    case .empty, .protocolError, .invalidReason: return nil
    }
  }
}
