import TouchProtocol

/// Where a source's moving touches are expected a few ms after a frame (`?predict=MS`,
/// protocol/README.md "Predicted positions"): one `MotionHistory` per touch id, fed from
/// every frame's entries, with the time the frames carry (`t`) and no clock of its own.
///
/// Only a `moved` entry is predicted: a `began` touch has no motion yet, a `stationary` one is
/// where it is, and an `ended` or `cancelled` one is gone. A hovering pen that moves is
/// predicted like a touching one (its pointer lags as much); its history starts again when it
/// lands or lifts, as its motion does.
public struct PositionPredictor: Sendable {
  private struct Track: Sendable {
    var id: Int64
    var hovering: Bool
    var history = MotionHistory()
    /// The frame (`frames`' count) that last listed it.
    var frame: Int
    /// Its entry in that frame was `moved`.
    var predictable: Bool
  }

  private var tracks: [Track] = []
  private var frames = 0

  public init() {}

  /// One frame's entries, in order (`entries` of a `touches` message), at device time `t`.
  /// A touch missing from the frame counts as gone (as the engine counts it cancelled).
  public mutating func take(t: Double, _ entries: [TouchesMessageEntries.Entry]) {
    frames &+= 1
    for e in entries {
      let i: Int
      if let known = tracks.firstIndex(where: { $0.id == e.id }) {
        i = known
      } else {
        tracks.append(Track(id: e.id, hovering: e.hovering, frame: 0, predictable: false))
        i = tracks.count - 1
      }
      if e.phase == .began || tracks[i].hovering != e.hovering || tracks[i].frame != frames &- 1 {
        // A new sequence, a pen that landed or lifted, or a touch the last frame did not
        // list: its motion starts here.
        tracks[i].history.reset()
        tracks[i].hovering = e.hovering
      }
      tracks[i].frame = frames
      tracks[i].history.add(t: t, x: e.x, y: e.y)
      tracks[i].predictable = e.phase == .moved
    }
    // Gone: not in this frame (an `ended` or `cancelled` one goes with the next frame).
    tracks.removeAll { $0.frame != frames }
  }

  /// Where touch `id` of the last frame taken is expected `ms` ms after that frame's `t`; nil
  /// for an entry that is not predicted (not `moved`, or not in that frame).
  public func predicted(_ id: Int64, after ms: Double) -> (x: Double, y: Double)? {
    guard let track = tracks.first(where: { $0.id == id }), track.frame == frames, track.predictable else {
      return nil
    }
    return track.history.predicted(after: ms)
  }
}
