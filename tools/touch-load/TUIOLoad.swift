import ArgumentParser
import Foundation
import OSC
import TUIO
import TouchProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// `touch-load --tuio HOST:PORT`: every source is a TUIO 1.1 sender over UDP instead of a
/// WebSocket, each from its own socket (its own TUIO source), streaming the scenario's frames
/// at `--rate` for `--duration`; a sender with no finger down sends its empty alive set, as
/// TUIO trackers do. There is no echo to time: the bench reads what the server took from
/// `/metrics` (`touchrelay_tuio_frames_total`) and its CPU time from /proc.
enum TUIOLoad {
  struct Result {
    var bundles = 0
    var failed = 0
  }

  static func run(
    target: String, sources: Int, rate: Double, duration: Double, scenario: Scenario, device: Device, seed: UInt64
  ) throws -> Result {
    guard let colon = target.lastIndex(of: ":"), let port = UInt16(target[target.index(after: colon)...]) else {
      throw ValidationError("--tuio: expected HOST:PORT, got '\(target)'")
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    guard inet_pton(AF_INET, String(target[..<colon]), &address.sin_addr) == 1 else {
      throw ValidationError("--tuio: '\(target[..<colon])' is not an IPv4 address")
    }
    var senders: [(fd: Int32, trace: TraceGenerator, writer: TUIOCursorWriter, seq: Int64)] = []
    for i in 0..<sources {
      let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
      guard fd >= 0 else { throw ValidationError("--tuio: socket: \(String(cString: strerror(errno)))") }
      senders.append(
        (
          fd,
          TraceGenerator(
            scenario: scenario, width: device.width, height: device.height, rate: rate, seed: seed &+ UInt64(i)),
          TUIOCursorWriter(sourceName: "touch-load-\(i)@127.0.0.1"), 0
        ))
    }
    defer { for s in senders { close(s.fd) } }
    var result = Result()
    let period = 1 / rate
    let start = Date()
    var tick = 0
    var encoder = OSCEncoder(reservingCapacity: 512)
    while Date().timeIntervalSince(start) < duration {
      let t = Double(tick) * period * 1000
      for i in senders.indices {
        let touches = senders[i].trace.next() ?? []
        senders[i].seq += 1
        let frame = Frame(seq: senders[i].seq, t: t, touches: touches)
        let bundle = senders[i].writer.bundle(for: frame, device: device)
        encoder = OSCEncoder(reservingCapacity: 512)
        encoder.append(bundle)
        let sent = encoder.bytes.withUnsafeBytes { b in
          withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
              sendto(senders[i].fd, b.baseAddress, b.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
          }
        }
        if sent < 0 { result.failed += 1 } else { result.bundles += 1 }
      }
      tick += 1
      let due = start.addingTimeInterval(Double(tick) * period).timeIntervalSinceNow
      if due > 0 { usleep(UInt32(due * 1_000_000)) }
    }
    return result
  }
}
