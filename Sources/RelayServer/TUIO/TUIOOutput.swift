import CSocket
import RelayCore
import TouchProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// `--tuio-out SESSION=HOST:PORT`: each destination is an observer of its session with
/// `format=tuio` and no connection; what the core queues for it (one TUIO bundle per source
/// frame, `/touchrelay/gesture` messages) is sent as UDP datagrams from one socket. The
/// protocol's JSON notices have no place in a TUIO stream and are let go. Service thread only.
final class TUIOOutput {
  struct Destination {
    let session: String
    let host: String
    let port: Int
    var address = sockaddr_storage()
    var length: socklen_t = 0
  }

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  private var destinations: [PeerID: Destination] = [:]
  private let planned: [Destination]
  private var fd4: Int32 = -1
  private var fd6: Int32 = -1
  /// Datagrams sent, and those the kernel refused (a full buffer, an unreachable host).
  private(set) var sent = 0
  private(set) var failed = 0

  /// Parses and resolves every `SESSION=HOST:PORT` (a start-up error if one is wrong).
  init(_ specs: [String]) throws {
    var list: [Destination] = []
    for spec in specs {
      guard let eq = spec.firstIndex(of: "="), let colon = spec.lastIndex(of: ":"), colon > eq else {
        throw Failure(description: "--tuio-out '\(spec)': give SESSION=HOST:PORT")
      }
      let session = String(spec[..<eq])
      var host = String(spec[spec.index(after: eq)..<colon])
      if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
      guard SessionName.isValid(session) else {
        throw Failure(description: "--tuio-out '\(spec)': session names match [A-Za-z0-9_-]{1,64}")
      }
      guard let port = Int(spec[spec.index(after: colon)...]), (1...65535).contains(port) else {
        throw Failure(description: "--tuio-out '\(spec)': the port must be a number from 1 to 65535")
      }
      var d = Destination(session: session, host: host, port: port)
      var hints = addrinfo()
      hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
      hints.ai_flags = AI_NUMERICSERV
      var res: UnsafeMutablePointer<addrinfo>?
      let rc = getaddrinfo(host, String(port), &hints, &res)
      guard rc == 0, let first = res else {
        throw Failure(
          description: "--tuio-out '\(spec)': cannot resolve '\(host)': \(String(cString: gai_strerror(rc)))")
      }
      withUnsafeMutableBytes(of: &d.address) {
        $0.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
      }
      d.length = first.pointee.ai_addrlen
      freeaddrinfo(res)
      list.append(d)
    }
    planned = list
  }

  /// Opens the observers in the core and the sockets.
  func start(_ core: RelayCore, at rt: Double) {
    fd4 = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    fd6 = socket(AF_INET6, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var filter = ObserverFilter(raw: true)
    filter.format = .tuio
    for d in planned {
      let peer = core.open(
        .observer(session: d.session, filter: filter), address: "tuio-out:\(d.host):\(d.port)", at: rt)
      destinations[peer] = d
    }
  }

  /// Whether `peer` is one of ours; if so, sends what it has queued (and ends it if closed).
  func drain(_ peer: PeerID, _ driver: LWSDriver) -> Bool {
    guard var d = destinations[peer] else { return false }
    let fd = Int32(d.address.ss_family) == AF_INET6 ? fd6 : fd4
    while true {
      switch driver.core.nextWrite(for: peer) {
      case .message(let m, _):
        guard m.isBinary else { continue }
        let n = m.withPayload { p in
          withUnsafePointer(to: &d.address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, p.baseAddress, p.count, 0, $0, d.length) }
          }
        }
        if n < 0 { failed += 1 } else { sent += 1 }
        continue
      case .close:
        destinations[peer] = nil
        driver.core.closed(peer, at: driver.now())
      case .nothing:
        break
      }
      break
    }
    return true
  }

  func stop() {
    if fd4 >= 0 { close(fd4) }
    if fd6 >= 0 { close(fd6) }
    fd4 = -1
    fd6 = -1
  }
}
