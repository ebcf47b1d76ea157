/// `hello`: who the source is. May be sent again to update the device (rotation, resize).
public struct Hello: Sendable, Equatable, Codable {
  public var device: Device
  public var regions: [Region]?
  public var scene: String?
  public var config: GestureConfig?
  /// The source id of a previous connection, to keep it across a reconnect.
  public var resume: String?

  public init(
    device: Device, regions: [Region]? = nil, scene: String? = nil,
    config: GestureConfig? = nil, resume: String? = nil
  ) {
    self.device = device
    self.regions = regions
    self.scene = scene
    self.config = config
    self.resume = resume
  }
}

/// `control`: sets a scene's switches or triggers one of its actions.
public struct Control: Sendable, Equatable, Codable {
  /// flatcube's "recognize any" switch.
  public var recognizeAny: Bool?
  /// A scene action: `reset` (flatcube counters, zoom), `clear` (sketch), `delete` (sketch selection).
  public var action: String?
  /// Which source's scene an observer's control addresses; a source may omit it.
  public var source: String?

  public init(recognizeAny: Bool? = nil, action: String? = nil, source: String? = nil) {
    self.recognizeAny = recognizeAny
    self.action = action
    self.source = source
  }
}

/// Everything a client may send. `hello` is boxed: a `Hello` is ~370 bytes, and unboxed it
/// made every message that size, copied several times per frame on the server's hot path.
public enum ClientMessage: Sendable, Equatable {
  indirect case hello(Hello)
  case frame(Frame)
  /// `frames`: several samples in one message, oldest first, each decoded on its own (a sample
  /// refused for its own content is a failure with its `seq`; the others still count).
  case frames([Result<Frame, ProtocolError>])
  case control(Control)
}
