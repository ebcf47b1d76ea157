import CFuzzerDriver
import Foundation
import OSC
import TUIO

/// libFuzzer target: arbitrary bytes as one UDP datagram into the OSC decoder and the TUIO
/// input, as the server's TUIO socket does. It must never crash, hang or read out of bounds
/// (run with ASan); what the decoder accepts must encode back to bytes it reads the same; and
/// the TUIO input must only hand on frames within the surface's slack, with finite positions.
func check(_ ok: Bool, _ what: @autoclosure () -> String) {
  if !ok { fatalError("invariant broken: \(what())") }
}

let settings = {
  var s = TUIOSettings()
  s.maxSources = 4
  return s
}()
// libFuzzer calls back on the one thread that started it: the state across inputs (senders
// followed, the clock) is that thread's alone.
nonisolated(unsafe) var input = TUIOInput(settings: settings)
nonisolated(unsafe) var events: [TUIOEvent] = []
nonisolated(unsafe) var clock = 0.0

func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
  if case .success(let packet) = OSCDecoder.decode(bytes) {
    let again = OSCDecoder.decode(OSCEncoder.encode(packet))
    check(again == .success(packet), "re-encoded packet reads differently")
  }
  clock += 1
  events.removeAll(keepingCapacity: true)
  input.receive(bytes, host: "10.0.0.1", port: Int(size % 3), at: clock, into: &events)
  for e in events {
    guard case .frame(_, let f) = e else { continue }
    check(f.touches.count <= 2 * settings.maxFingers, "\(f.touches.count) touches")
    check(Set(f.touches.map(\.id)).count == f.touches.count, "duplicate touch ids")
    for t in f.touches {
      check(t.x.isFinite && t.y.isFinite, "position \(t.x), \(t.y)")
      // Within the positions' slack (-1 … 2) of the largest surface a TUIO 2.0 dim can give.
      check(abs(t.x) <= 2 * 65535 && abs(t.y) <= 2 * 65535, "position \(t.x), \(t.y)")
    }
  }
  check(input.senderCount <= settings.maxSources, "\(input.senderCount) senders")
  // Now and then everyone goes silent: the timeout path too.
  if size % 17 == 0 { input.expire(at: clock + settings.timeoutMs + 1, into: &events) }
  return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOne(data, size) })
