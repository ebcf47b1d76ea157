import TouchProtocol

/// One TUIO sender's state: the last frame id taken, the fingers down and where, and the
/// protocol frame numbering of the source it is.
struct TUIOSender {
  let key: String
  var device: Device
  var lastFrameID: Int64?
  var lastSeen: Double
  /// The frame `seq` of the source: its own count, as TUIO's frame ids may restart.
  var seq: Int64 = 0
  /// Fingers down: session id to position in points, in the order they began.
  var down: [Int64: (x: Double, y: Double)] = [:]
  /// What TUIO 2.0 pointers down last said of their contact (pressure, radius in points), by
  /// session id; none for a finger that said nothing (every TUIO 1.1 one).
  var details: [Int64: ContactDetails] = [:]
  var order: [Int64] = []

  init(key: String, device: Device, at rt: Double) {
    self.key = key
    self.device = device
    lastSeen = rt
  }
}
