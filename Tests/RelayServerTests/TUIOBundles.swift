import OSC
import TouchRelayClient

extension WebSocketConnection {
  /// The next `count` TUIO 1.1 bundles a `format=tuio` observer gets that carry an `alive`
  /// message, skipping anything else (JSON notices, gesture messages).
  func tuioCursorBundles(_ count: Int) async throws -> [OSCBundle] {
    var bundles: [OSCBundle] = []
    while bundles.count < count {
      guard case .binary(let bytes) = try await next(timeout: TestTime.seconds(10)) else { continue }
      guard case .bundle(let b) = try OSCDecoder.decode(bytes).get() else { continue }
      if b.alive != nil { bundles.append(b) }
    }
    return bundles
  }
}

extension OSCBundle {
  /// The session ids of its `alive` message, if it has one.
  var alive: [OSCArgument]? {
    messages.first { $0.arguments.first == .string("alive") }.map { Array($0.arguments.dropFirst()) }
  }
}
