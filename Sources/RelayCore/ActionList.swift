/// What the driver is to do, in order: the core appends, the driver takes them all with
/// `RelayCore.drainActions` once its callback is done. Reused: the two lists keep their storage.
final class ActionList {
  private var pending: [RelayAction] = []
  private var draining: [RelayAction] = []
  /// Set while `drain` hands actions over. A call made from inside its `body` (a callback
  /// that the driver's own library call caused at once) returns, and the outer call's loop
  /// takes what was added: the lists are swapped and drained in place, and a nested swap
  /// would hand entries over twice or lose them.
  private var handingOver = false

  var isEmpty: Bool { pending.isEmpty }

  func append(_ action: RelayAction) { pending.append(action) }

  /// Hands every pending action to `body`, in order, and forgets them; actions that `body`'s
  /// own calls into the core cause are handed over in the same call.
  func drain(_ body: (RelayAction) -> Void) {
    guard !handingOver else { return }
    handingOver = true
    defer { handingOver = false }
    while !pending.isEmpty {
      swap(&pending, &draining)
      for action in draining { body(action) }
      draining.removeAll(keepingCapacity: true)
    }
  }
}
