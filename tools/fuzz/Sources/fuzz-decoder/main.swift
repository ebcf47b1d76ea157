import CFuzzerDriver
import Foundation
@_spi(Testing) import TouchProtocol

/// libFuzzer target: arbitrary bytes into `MessageDecoder().decode`, as the server does with
/// every text message. It must never crash, hang or read out of bounds (run with ASan), and
/// whatever it accepts must keep the protocol's promises: only finite numbers, a frame within
/// the touch limit with distinct ids and a `seq` in 0...2^53-1 (each sample of `frames` too,
/// at most `maxFramesPerMessage` of them), a hello with a positive surface. Every refusal carries a message,
/// and the answer is the full decoder's (`decodeInFull`): the compact frame reader, tried first,
/// never decides anything differently.
let decoder = MessageDecoder()

func check(_ ok: Bool, _ what: @autoclosure () -> String) {
  if !ok { fatalError("invariant broken: \(what())") }
}

func finite(_ v: Double?) -> Bool { v?.isFinite ?? true }

func checkFrame(_ f: Frame) {
  check(f.t.isFinite, "frame t \(f.t)")
  check(f.seq >= 0 && f.seq <= 9_007_199_254_740_991, "frame seq \(f.seq)")
  check(f.touches.count <= decoder.limits.maxTouchesPerFrame, "\(f.touches.count) touches")
  check(Set(f.touches.map(\.id)).count == f.touches.count, "duplicate touch ids")
  for p in f.touches {
    check(p.x.isFinite && p.y.isFinite, "touch position \(p.x), \(p.y)")
    check(finite(p.force) && finite(p.radiusX) && finite(p.radiusY), "touch extras")
  }
}

func checkMessage(_ message: ClientMessage) {
  switch message {
  case .frame(let f):
    checkFrame(f)
  case .frames(let samples):
    check(samples.count <= decoder.limits.maxFramesPerMessage, "\(samples.count) samples")
    for sample in samples {
      switch sample {
      case .success(let f): checkFrame(f)
      case .failure(let e): check(!e.message.isEmpty, "sample error \(e.code) without a message")
      }
    }
  case .hello(let h):
    check(h.device.width.isFinite && h.device.width > 0, "device width \(h.device.width)")
    check(h.device.height.isFinite && h.device.height > 0, "device height \(h.device.height)")
    for r in h.regions ?? [] {
      check(r.x.isFinite && r.y.isFinite && r.width.isFinite && r.height.isFinite, "region \(r)")
      check(r.width >= 0 && r.height >= 0, "region size \(r)")
    }
  case .control:
    break
  }
}

func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
  let result = decoder.decode(bytes)
  switch result {
  case .success(let message): checkMessage(message)
  case .failure(let error): check(!error.message.isEmpty, "error \(error.code) without a message")
  }
  check(decoder.decodeInFull(bytes) == result, "the compact frame reader and the full decoder differ")
  if let (frame, text) = decoder.compactFrame(bytes) {
    check(result == .success(.frame(frame)), "compactFrame differs")
    // The texts the mirror would copy are the server's own writing of those values.
    if let touches = text.touches {
      var w = JSONWriter()
      ServerMessage.write(frame.touches, &w)
      check(w.bytes.elementsEqual(touches), "canonical touches text differs from the writer's")
    }
    if let head = text.head {
      check(
        ServerMessage.head(seq: frame.seq, t: frame.t).elementsEqual(head),
        "canonical seq and t text differs from the writer's")
    }
  }
  // The same bytes through the array entry point give the same answer.
  check(decoder.decode(Array(bytes)) == result, "decode([UInt8]) differs")
  return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOne(data, size) })
