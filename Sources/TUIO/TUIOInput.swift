import OSC
import TouchProtocol

/// TUIO senders as protocol sources, as a state machine: OSC packets in (with the sender's
/// address and the server time), `TUIOEvent`s out. No socket and no clock: the driver gives
/// both, and asks for `expire(at:)` to learn who went silent.
///
/// Each bundle is one frame of its sender. Its alive set says which fingers are down: an id new
/// to it has `began` (once its position is known), one that stays has `moved` (if set anew) or
/// is `stationary`, one that left it has `ended` at its last position. Frame ids (TUIO 1.1
/// `fseq`, TUIO 2.0 `frm`) are taken as reference TUIO clients take them: a bundle not newer
/// than the last is stale and dropped, `fseq -1` is read for its alive set only, and a jump
/// back of more than `restartJump` is a restarted sender.
public struct TUIOInput {
  public let settings: TUIOSettings
  public private(set) var counters = TUIOCounters()
  private var senders: [String: TUIOSender] = [:]

  /// A frame id this far below the last one is a sender that started over, not a late bundle.
  public static let restartJump: Int64 = 100
  /// Device names longer than this are cut (a TUIO source string is the sender's to choose).
  public static let maxNameLength = 64

  public init(settings: TUIOSettings) {
    self.settings = settings
  }

  /// Senders followed now.
  public var senderCount: Int { senders.count }

  /// The key a sender is followed by: its TUIO source name with the datagram's host (two
  /// TuioPads both called "TuioPad" on two phones are two sources), or the host and port when
  /// the bundle names no source.
  public static func key(source: String?, host: String, port: Int) -> String {
    if let source, !source.isEmpty { return "\(source.prefix(maxNameLength)) from \(host)" }
    return "\(host):\(port)"
  }

  /// One datagram's bytes from `host`:`port` at server time `rt` (ms).
  public mutating func receive(
    _ bytes: UnsafeRawBufferPointer, host: String, port: Int, at rt: Double, into events: inout [TUIOEvent]
  ) {
    counters.datagrams += 1
    switch OSCDecoder.decode(bytes) {
    case .failure(let e):
      counters.malformed(e.kind.rawValue)
    case .success(let packet):
      receive(packet, host: host, port: port, at: rt, into: &events)
    }
  }

  /// One decoded packet (counted by the caller as a datagram when it did not come as bytes).
  public mutating func receive(
    _ packet: OSCPacket, host: String, port: Int, at rt: Double, into events: inout [TUIOEvent]
  ) {
    let m: TUIOFrameMessage
    switch TUIOFrameMessage.read(packet) {
    case .failure(let why):
      counters.malformed(why.rawValue)
      return
    case .success(let read):
      m = read
    }
    counters.skippedMessages += m.skipped
    // A bundle of other profiles only (objects, blobs) says nothing of fingers.
    guard m.alive != nil || m.frameID != nil || !m.positions.isEmpty else { return }
    let key = Self.key(source: m.source, host: host, port: port)
    if senders[key] == nil {
      guard senders.count < settings.maxSources else {
        counters.refusedSources += 1
        return
      }
      var device = Device(
        name: m.source.map { String($0.prefix(Self.maxNameLength)) } ?? "TUIO \(host):\(port)",
        width: settings.surfaceWidth, height: settings.surfaceHeight)
      if let d = m.dimension {
        device.width = Double(d.width)
        device.height = Double(d.height)
      }
      senders[key] = TUIOSender(key: key, device: device, at: rt)
      events.append(.joined(sender: key, hello: Hello(device: device)))
    }
    apply(m, to: key, at: rt, into: &events)
  }

  private mutating func apply(_ m: TUIOFrameMessage, to key: String, at rt: Double, into events: inout [TUIOEvent]) {
    guard var s = senders[key] else { return }
    defer { senders[key] = s }
    s.lastSeen = rt
    var redundant = false
    if let f = m.frameID {
      if f == -1 && m.version == .tuio11 {
        redundant = true
        counters.redundantFrames += 1
      } else if let last = s.lastFrameID, f <= last {
        guard last - f > Self.restartJump else {
          counters.staleFrames += 1
          return
        }
        counters.restarts += 1
        s.lastFrameID = f
      } else {
        s.lastFrameID = f
      }
    }
    if let d = m.dimension, Double(d.width) != s.device.width || Double(d.height) != s.device.height {
      s.device.width = Double(d.width)
      s.device.height = Double(d.height)
      events.append(.updated(sender: key, hello: Hello(device: s.device)))
    }
    var touches: [TouchPoint] = []
    let alive = m.alive.map(Set.init) ?? Set(s.order)
    // Fingers that left the alive set have ended where they last were.
    var stillDown: [Int64] = []
    for id in s.order {
      if alive.contains(id) {
        stillDown.append(id)
      } else if let p = s.down.removeValue(forKey: id) {
        touches.append(TouchPoint(id: id, phase: .ended, x: p.x, y: p.y, details: s.details.removeValue(forKey: id)))
      }
    }
    s.order = stillDown
    // A redundant bundle carries state only: no positions from it.
    var set: [Int64: (x: Double, y: Double)] = [:]
    var setDetails: [Int64: ContactDetails] = [:]
    if !redundant {
      for p in m.positions where alive.contains(p.id) {
        set[p.id] = (p.x * s.device.width, p.y * s.device.height)
        if p.pressure != nil || p.radius != nil {
          setDetails[p.id] = ContactDetails(pressure: p.pressure, radius: p.radius.map { $0 * s.device.width })
        }
      }
    }
    for id in s.order {
      let old = s.down[id]!
      if let p = set.removeValue(forKey: id) {
        // A set without pressure and radius says it has none now (TUIO 2.0 sends both always).
        let details = setDetails.removeValue(forKey: id)
        guard p != old || details != s.details[id] else {
          touches.append(TouchPoint(id: id, phase: .stationary, x: old.x, y: old.y, details: s.details[id]))
          continue
        }
        s.down[id] = p
        s.details[id] = details
        // A change of pressure alone is a move, as UIKit reports a change of force.
        touches.append(TouchPoint(id: id, phase: .moved, x: p.x, y: p.y, details: details))
      } else {
        touches.append(TouchPoint(id: id, phase: .stationary, x: old.x, y: old.y, details: s.details[id]))
      }
    }
    // New fingers, in the order the bundle set them.
    for p in m.positions {
      guard let pos = set.removeValue(forKey: p.id) else { continue }
      guard s.order.count < settings.maxFingers else {
        counters.fingersOverLimit += 1
        continue
      }
      s.down[p.id] = pos
      s.order.append(p.id)
      let details = setDetails.removeValue(forKey: p.id)
      s.details[p.id] = details
      touches.append(TouchPoint(id: p.id, phase: .began, x: pos.x, y: pos.y, details: details))
    }
    // Nothing down and nothing ended: an idle sender's heartbeat, no frame.
    guard !touches.isEmpty else { return }
    s.seq += 1
    counters.frames += 1
    events.append(.frame(sender: key, frame: Frame(seq: s.seq, t: rt, touches: touches)))
  }

  /// When the next sender times out if it stays silent (server ms), if any are followed.
  public var nextExpiry: Double? {
    senders.values.map(\.lastSeen).min().map { $0 + settings.timeoutMs }
  }

  /// Senders silent for longer than the timeout at `rt` have left.
  public mutating func expire(at rt: Double, into events: inout [TUIOEvent]) {
    let gone = senders.values.filter { rt - $0.lastSeen > settings.timeoutMs }.map(\.key).sorted()
    for key in gone {
      senders[key] = nil
      counters.timeouts += 1
      events.append(.left(sender: key))
    }
  }

  /// Forgets a sender the driver could not make a source of (the core refused it).
  public mutating func forget(_ key: String) {
    senders[key] = nil
  }
}
