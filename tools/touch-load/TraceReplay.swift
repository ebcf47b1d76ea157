import Foundation
import TouchProtocol

/// One tick's worth of a recording: a frame's touches, or a quiet time with no finger down.
enum ReplayStep: Sendable {
  case touches([TouchPoint])
  case idle(ms: Double)
}

/// Replays recorded frames, one per tick of the schedule (the recording's own `seq` and `t`
/// are replaced by the schedule's, so `-r` sets the pace; quiet times keep their length).
/// Loops forever, renumbering touch ids on each pass so an id is never reused while the
/// server may remember it.
struct TraceReplay: TouchTrace {
  let steps: [ReplayStep]
  let periodMs: Double
  private var index: Int
  private var idOffset: Int64 = 0
  private let idSpan: Int64
  private var idleTicks = 0

  /// `start` picks where the source begins (sources should not move in lockstep); it is
  /// moved to a point where no finger is down, so no touch starts mid-gesture.
  init(steps: [ReplayStep], rate: Double, start: Int) {
    precondition(!steps.isEmpty)
    self.steps = steps
    self.periodMs = 1000 / rate
    var maxID: Int64 = 0
    var safe: [Int] = [0]
    var anyDown = false
    for (i, step) in steps.enumerated() {
      if case .touches(let t) = step {
        maxID = max(maxID, t.map(\.id).max() ?? 0)
        anyDown = t.contains { !$0.phase.isTerminal }
      }
      if !anyDown, i + 1 < steps.count { safe.append(i + 1) }
    }
    self.index = safe[start % safe.count]
    self.idSpan = maxID + 1
  }

  mutating func next() -> [TouchPoint]? {
    if idleTicks > 0 {
      idleTicks -= 1
      return nil
    }
    let step = steps[index]
    index += 1
    if index == steps.count {
      index = 0
      idOffset += idSpan
    }
    switch step {
    case .idle(let ms):
      idleTicks = max(0, Int((ms / periodMs).rounded()) - 1)
      return nil
    case .touches(var touches):
      guard !touches.isEmpty else { return nil }
      if idOffset != 0 {
        for i in touches.indices { touches[i].id += idOffset }
      }
      return touches
    }
  }
}

/// Reads recordings: JSON lines (each a client message; `hello` gives the device, `frame`
/// the touches, anything else is skipped and counted) or conformance vectors (`.json`,
/// protocol/vectors: `hello` plus `steps` of `frame`, `advance`, `close`...).
/// Each file is closed off (touches still down are cancelled, then 600 ms of quiet so the
/// engine's timers settle) and gets its own touch ids, so files can follow one another.
enum TraceLoader {
  struct Recording: Sendable {
    var steps: [ReplayStep] = []
    var frameCount = 0
    var device: Device?
    var skipped = 0
    var files: [String] = []
  }

  enum Failure: Error, CustomStringConvertible {
    case unreadable(String, String)
    case empty(String)
    var description: String {
      switch self {
      case .unreadable(let path, let why): return "cannot read \(path): \(why)"
      case .empty(let what): return "no frames found in \(what)"
      }
    }
  }

  static func load(files: [String]) throws -> Recording {
    var recording = Recording(files: files)
    var idBase: Int64 = 0
    for path in files {
      let data: Data
      do {
        data = try Data(contentsOf: URL(fileURLWithPath: path))
      } catch {
        throw Failure.unreadable(path, "\(error)")
      }
      var file = path.hasSuffix(".json") ? try vector(data, path: path) : jsonLines(data)
      recording.device = recording.device ?? file.device
      recording.skipped += file.skipped
      // Close off whatever is still down, and make the ids this file's own.
      var maxID: Int64 = 0
      var down: [TouchPoint] = []
      for i in file.steps.indices {
        guard case .touches(var t) = file.steps[i] else { continue }
        for j in t.indices {
          maxID = max(maxID, t[j].id)
          t[j].id += idBase
        }
        down = t.filter { !$0.phase.isTerminal }
        file.steps[i] = .touches(t)
      }
      if !down.isEmpty {
        file.steps.append(
          .touches(
            down.map {
              var p = $0
              p.phase = .cancelled
              return p
            }))
      }
      file.steps.append(.idle(ms: 600))
      idBase += maxID + 1
      recording.frameCount += file.frameCount
      recording.steps += file.steps
    }
    guard recording.frameCount > 0 else { throw Failure.empty(files.joined(separator: ", ")) }
    return recording
  }

  private static func jsonLines(_ data: Data) -> Recording {
    var r = Recording()
    let decoder = MessageDecoder()
    for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix("//") { continue }
      switch decoder.decode(String(trimmed)) {
      case .success(.frame(let f)):
        r.steps.append(.touches(f.touches))
        r.frameCount += 1
      case .success(.hello(let h)): r.device = r.device ?? h.device
      default: r.skipped += 1
      }
    }
    return r
  }

  /// A conformance vector: frames (and each sample of a `frames` step) go through the real
  /// decoder (so ones it rejects are skipped), `advance` becomes quiet time until its device time, the rest (control,
  /// close) is skipped.
  private static func vector(_ data: Data, path: String) throws -> Recording {
    guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let steps = object["steps"] as? [[String: Any]]
    else { throw Failure.unreadable(path, "not a vector (an object with 'steps')") }
    var r = Recording()
    let decoder = MessageDecoder()
    var lastT = 0.0
    if let hello = object["hello"] as? [String: Any], let d = hello["device"] as? [String: Any],
      let w = (d["width"] as? NSNumber)?.doubleValue,
      let h = (d["height"] as? NSNumber)?.doubleValue
    {
      r.device = Device(name: d["name"] as? String ?? "vector", width: w, height: h)
    }
    // A `frames` step's samples are replayed as frames of their own.
    let flat = steps.flatMap { step in
      (step["frames"] as? [[String: Any]]).map { $0.map { ["frame": $0] } } ?? [step]
    }
    for step in flat {
      if var frame = step["frame"] as? [String: Any] {
        frame["type"] = "frame"
        guard let bytes = try? JSONSerialization.data(withJSONObject: frame),
          case .success(.frame(let f)) = decoder.decode(Array(bytes))
        else {
          r.skipped += 1
          continue
        }
        r.steps.append(.touches(f.touches))
        r.frameCount += 1
        lastT = f.t
      } else if let until = (step["advance"] as? NSNumber)?.doubleValue {
        // `advance` names a device time (README: the timers run at time T), not a length.
        r.steps.append(.idle(ms: max(0, until - lastT)))
        lastT = max(lastT, until)
      } else {
        r.skipped += 1
      }
    }
    return r
  }

  /// Every vector (`.json`) and recording (`.jsonl`, `.ndjson`) in `directory`, by name.
  static func load(vectors directory: String) throws -> Recording {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
      throw Failure.unreadable(directory, "no such directory")
    }
    let files = names.filter {
      $0.hasSuffix(".json") || $0.hasSuffix(".jsonl") || $0.hasSuffix(".ndjson")
    }
    .sorted().map { directory + "/" + $0 }
    guard !files.isEmpty else { throw Failure.empty("\(directory) (no .json or .jsonl files)") }
    return try load(files: files)
  }
}
