import TouchProtocol

/// Samples waiting to be sent, oldest first, bounded for a slow network. Below `capacity`
/// every sample is kept. At capacity a sample that only moves fingers replaces the newest
/// waiting one when that one also only moved the very same fingers: each sample lists every
/// finger down with its position, so the later one carries everything the earlier one said
/// (only the path between them is lost). A sample where a finger begins, ends or is cancelled
/// (or a finger set that differs) is never replaced and never dropped, so the buffer may
/// exceed its capacity by those alone.
public struct SampleBuffer: Sendable {
  public let capacity: Int
  private var frames: [Frame] = []
  private var head = 0
  /// How many samples were replaced by a later one since the start.
  public private(set) var merged = 0

  public init(capacity: Int) {
    self.capacity = max(1, capacity)
  }

  public var count: Int { frames.count - head }
  public var isEmpty: Bool { head == frames.count }

  public mutating func append(_ frame: Frame) {
    if count >= capacity, let last = frames.last, Self.canReplace(last, with: frame) {
      frames[frames.count - 1] = frame
      merged += 1
      return
    }
    frames.append(frame)
  }

  /// The oldest `limit` samples, removed from the buffer.
  public mutating func take(_ limit: Int) -> ArraySlice<Frame> {
    let end = min(frames.count, head + max(1, limit))
    let batch = frames[head..<end]
    head = end
    if head == frames.count {
      frames.removeAll(keepingCapacity: true)
      head = 0
    } else if head > 1024, head * 2 > frames.count {
      frames.removeFirst(head)
      head = 0
    }
    return batch
  }

  /// True when `new` says all `old` says: both only move (or hold) fingers, the same ones.
  static func canReplace(_ old: Frame, with new: Frame) -> Bool {
    guard old.touches.count == new.touches.count else { return false }
    for t in old.touches where !isMotion(t.phase) { return false }
    for t in new.touches where !isMotion(t.phase) { return false }
    for t in new.touches where !old.touches.contains(where: { $0.id == t.id }) { return false }
    return true
  }

  private static func isMotion(_ phase: TouchPhase) -> Bool { phase == .moved || phase == .stationary }
}
