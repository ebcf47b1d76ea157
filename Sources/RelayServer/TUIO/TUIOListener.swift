import RelayCore
import TUIO
import TouchProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// TUIO senders on the service thread: reads the UDP socket (a `RawSocket` adopted into the
/// loop, so it works on libev and on poll), feeds `TUIOInput` and makes each sender a source
/// of the core without a connection. Owned by the driver; touched by the service thread only.
final class TUIOListener: RawSocketOwner {
  let socket: TUIOSocket
  private let session: String
  private(set) var input: TUIOInput
  /// The core's peer of each sender (`TUIOInput`'s key).
  private var peers: [String: PeerID] = [:]
  private var events: [TUIOEvent] = []
  /// One datagram at a time: UDP's largest payload.
  private var buffer = [UInt8](repeating: 0, count: 65536)
  private var timer: RelayTimer?
  private var timerAt: Double?
  /// The socket on the loop, once adopted.
  private(set) var adopted: RawSocket?
  private weak var driver: LWSDriver?

  init(socket: TUIOSocket, configuration c: RelayConfiguration) {
    self.socket = socket
    session = c.tuioSession
    var s = TUIOSettings()
    s.surfaceWidth = c.tuioSurface.width
    s.surfaceHeight = c.tuioSurface.height
    s.maxSources = c.tuioMaxSources
    s.timeoutMs = c.tuioTimeout * 1000
    s.maxFingers = c.limits.maxFingers
    input = TUIOInput(settings: s)
  }

  /// Puts the socket on the context's loop; its datagrams are read at `rawSocketReadable`.
  func adopt(vhost: OpaquePointer, driver: LWSDriver) -> Bool {
    self.driver = driver
    adopted = RawSocket.adopt(descriptor: socket.fd, vhost: vhost, owner: self)
    guard adopted != nil else { return false }
    timer = RelayTimer(loop: driver.eventLoop, owner: Unmanaged.passUnretained(driver).toOpaque(), fire: tuioTimerFired)
    return true
  }

  func rawSocketReadable(_ socket: RawSocket) {
    guard let driver else { return }
    readAll(driver)
  }

  /// Reads every datagram waiting, until the socket has none.
  func readAll(_ driver: LWSDriver) {
    var from = sockaddr_storage()
    while true {
      var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
      let n = buffer.withUnsafeMutableBytes { b in
        withUnsafeMutablePointer(to: &from) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            recvfrom(socket.fd, b.baseAddress, b.count, 0, $0, &length)
          }
        }
      }
      if n < 0 {
        if errno == EINTR { continue }
        break  // EAGAIN: nothing more for now (other errors: ICMP reports, nothing to do)
      }
      let (host, port) = TUIOSocket.sender(from)
      let rt = driver.now()
      events.removeAll(keepingCapacity: true)
      buffer.withUnsafeBytes {
        input.receive(UnsafeRawBufferPointer(rebasing: $0[0..<n]), host: host, port: port, at: rt, into: &events)
      }
      carryOut(driver, at: rt)
      // Each datagram's actions now: a burst of frames would otherwise queue them all first.
      driver.performActions()
    }
    planExpiry(driver)
  }

  private func carryOut(_ driver: LWSDriver, at rt: Double) {
    let core = driver.core
    for event in events {
      switch event {
      case .joined(let key, let hello):
        guard !core.stopping else {
          input.forget(key)
          continue
        }
        let peer = core.open(.source(session: session), address: "tuio:\(key)", at: rt)
        peers[key] = peer
        core.receive(decoded: .hello(hello), from: peer, at: rt)
      case .updated(let key, let hello):
        if let peer = peers[key] { core.receive(decoded: .hello(hello), from: peer, at: rt) }
      case .frame(let key, let frame):
        // The core ignores it once the peer is being closed.
        guard let peer = peers[key] else { continue }
        core.receive(decoded: .frame(frame), from: peer, at: rt)
      case .left(let key):
        guard let peer = peers.removeValue(forKey: key) else { continue }
        // A goodbye, not a dropped network: observers are told `left` at once.
        core.peerSentClose(peer, code: 1000)
        core.closed(peer, at: rt)
      }
    }
  }

  /// A TUIO source has output (its welcome, errors) or its close from the core: there is no
  /// connection to write to, so it is taken and let go; a close ends the peer.
  func drain(_ peer: PeerID, _ driver: LWSDriver) {
    var write = driver.core.nextWrite(for: peer)
    while case .message = write { write = driver.core.nextWrite(for: peer) }
    guard case .close = write else { return }
    if let key = peers.first(where: { $0.value == peer })?.key {
      peers[key] = nil
      input.forget(key)
    }
    driver.core.closed(peer, at: driver.now())
  }

  func timerFired(_ driver: LWSDriver) {
    timerAt = nil
    let rt = driver.now()
    events.removeAll(keepingCapacity: true)
    input.expire(at: rt, into: &events)
    carryOut(driver, at: rt)
    driver.performActions()
    planExpiry(driver)
  }

  private func planExpiry(_ driver: LWSDriver) {
    guard let due = input.nextExpiry, let context = driver.context else { return }
    // A little after the deadline, so the sender is past it when the timer fires.
    let at = due + 1
    if let planned = timerAt, planned <= at { return }
    timerAt = at
    timer?.schedule(context, afterMilliseconds: at - driver.now())
  }

  func stop() {
    timer?.cancel()
  }
}

func tuioTimerFired(_ owner: UnsafeMutableRawPointer?) {
  guard let owner else { return }
  let driver = Unmanaged<LWSDriver>.fromOpaque(owner).takeUnretainedValue()
  driver.tuio?.timerFired(driver)
}
