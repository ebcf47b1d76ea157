/// The `code` of an `error` message. Each is listed with its cause and the server's
/// action in protocol/README.md; the raw values are the contract.
public enum ErrorCode: String, Sendable, CaseIterable, Codable {
  /// Not JSON, not a JSON object, or nested deeper than the limit.
  case badJSON = "bad_json"
  /// `type` names no message this role may send.
  case unknownType = "unknown_type"
  case missingField = "missing_field"
  case wrongType = "wrong_type"
  /// NaN, Infinity (in any spelling) or a number too large for a double.
  case nonFinite = "non_finite"
  /// A value of the right type outside its allowed range.
  case badValue = "bad_value"
  case unknownPhase = "unknown_phase"
  /// A `frame` or `control` before the first `hello`.
  case noHello = "no_hello"
  case seqNotIncreasing = "seq_not_increasing"
  case timeBackwards = "time_backwards"
  case duplicateTouchID = "duplicate_touch_id"
  case tooManyTouches = "too_many_touches"
  /// A `frames` message with more samples than `Limits.maxFramesPerMessage`; dropped whole.
  case tooManyFrames = "too_many_frames"
  /// `moved`/`ended`/`stationary` for a touch id that is not down (sent once per id).
  case unknownTouch = "unknown_touch"
  /// More fingers down than the limit; the extra touch is ignored.
  case tooManyFingers = "too_many_fingers"
  /// An observer sent a source-only message.
  case notAllowed = "not_allowed"
  case unknownScene = "unknown_scene"
  case unknownAction = "unknown_action"
  case unknownSource = "unknown_source"
  /// An observer's `control` for a source on another cluster node while this node's bus is
  /// down: it cannot be carried there now (nor safely later).
  case sourceUnreachable = "source_unreachable"
  /// A source sent more frames per second than the limit; the excess is dropped.
  case rateLimited = "rate_limited"
}

/// A rejected message: the connection stays open and the message is dropped.
public struct ProtocolError: Error, Sendable, Equatable {
  public var code: ErrorCode
  public var message: String
  /// The `seq` of the offending frame, when known.
  public var seq: Int64?

  public init(_ code: ErrorCode, _ message: String, seq: Int64? = nil) {
    self.code = code
    self.message = message
    self.seq = seq
  }
}

/// WebSocket close codes the server uses (RFC 6455 section 7.4.1).
public enum CloseCode: UInt16, Sendable, CaseIterable {
  case goingAway = 1001
  case protocolError = 1002
  case unsupportedData = 1003
  case invalidPayload = 1007
  case policyViolation = 1008
  case messageTooBig = 1009
  /// A cluster node closes a source's connection when the source resumed on another node.
  case handedOver = 4001
}
