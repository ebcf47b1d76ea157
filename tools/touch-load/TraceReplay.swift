import Foundation
import TouchProtocol

/// Replays recorded frames, one per tick of the schedule (the recording's own `seq` and `t`
/// are replaced by the schedule's, so `-r` sets the pace). Loops forever, renumbering touch
/// ids on each pass so an id is never reused while the server may remember it.
struct TraceReplay: TouchTrace {
  let frames: [[TouchPoint]]
  private var index: Int
  private var idOffset: Int64 = 0
  private let idSpan: Int64

  /// `start` lets each source begin at another point of the recording.
  init(frames: [[TouchPoint]], start: Int) {
    precondition(!frames.isEmpty)
    self.frames = frames
    self.index = start % frames.count
    let maxID = frames.lazy.flatMap { $0 }.map(\.id).max() ?? 0
    self.idSpan = maxID + 1
  }

  mutating func next() -> [TouchPoint]? {
    var touches = frames[index]
    index += 1
    if index == frames.count {
      index = 0
      idOffset += idSpan
    }
    guard !touches.isEmpty else { return nil }
    if idOffset != 0 {
      for i in touches.indices { touches[i].id += idOffset }
    }
    return touches
  }
}

/// Reads recordings: JSON lines, each a client message (`hello` lines give the device,
/// `frame` lines the touches; anything else, invalid lines included, is skipped and counted).
enum TraceLoader {
  struct Recording: Sendable {
    var frames: [[TouchPoint]]
    var device: Device?
    var skipped: Int
    var files: [String]
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
    var recording = Recording(frames: [], device: nil, skipped: 0, files: files)
    let decoder = MessageDecoder()
    for path in files {
      let text: String
      do {
        text = try String(contentsOfFile: path, encoding: .utf8)
      } catch {
        throw Failure.unreadable(path, "\(error)")
      }
      for line in text.split(whereSeparator: \.isNewline) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix("//") { continue }
        switch decoder.decode(String(trimmed)) {
        case .success(.frame(let f)): recording.frames.append(f.touches)
        case .success(.hello(let h)): recording.device = recording.device ?? h.device
        default: recording.skipped += 1
        }
      }
    }
    guard !recording.frames.isEmpty else { throw Failure.empty(files.joined(separator: ", ")) }
    return recording
  }

  /// Every `.jsonl` / `.ndjson` file under `directory` (protocol/vectors), in name order.
  /// Vectors meant to be rejected by the server are skipped by the decoder, so only valid
  /// frames are replayed.
  static func load(vectors directory: String) throws -> Recording {
    let fm = FileManager.default
    guard let walker = fm.enumerator(atPath: directory) else {
      throw Failure.unreadable(directory, "no such directory")
    }
    var files: [String] = []
    while let name = walker.nextObject() as? String {
      if name.hasSuffix(".jsonl") || name.hasSuffix(".ndjson") {
        files.append(directory + "/" + name)
      }
    }
    guard !files.isEmpty else { throw Failure.empty("\(directory) (no .jsonl files)") }
    return try load(files: files.sorted())
  }
}
