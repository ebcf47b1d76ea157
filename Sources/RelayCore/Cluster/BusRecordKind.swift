/// What one record on the cluster bus carries (protocol/README.md, "Cluster").
public enum BusRecordKind: UInt8, Sendable {
  /// A source frame's `touches` message, for raw observers.
  case touches = 0x54  // T
  /// A `gesture` message.
  case gesture = 0x47  // G
  /// A `scene` message; the extra bytes are the state alone (welcomes, snapshots).
  case scene = 0x53  // S
  /// A `source` message (joined, rejoined, updated, left); the extra bytes are the source's
  /// `SourceInfo` object for welcomes.
  case source = 0x4A  // J
  /// A source the node has, re-sent when another node asks (`sync`): no message for
  /// observers, unless the other node did not know it. The extra bytes are its `SourceInfo`.
  case announce = 0x41  // A
  /// The end of the node's answer to a `sync`: sources of it not announced are gone.
  case announceEnd = 0x5A  // Z
  /// A source dropped without a clean close: held for `hello.resume` on any node.
  case departed = 0x44  // D
  /// An observer's `control` for a source on another node; `arg` names the observer
  /// (node and connection), the payload is the message as the observer sent it.
  case control = 0x43  // C
  /// The answer to a `control` that failed: an `error` message for the observer named in `arg`.
  case controlError = 0x45  // E
}

/// What a message on the nodes' channel says.
public enum NodeNoticeKind: UInt8, Sendable {
  /// The node is alive (once a second).
  case heartbeat = 0x48  // H
  /// The node asks another (or every) node to announce its sources again.
  case sync = 0x59  // Y
  /// The node is shutting down cleanly: its sources have left.
  case bye = 0x42  // B
}
