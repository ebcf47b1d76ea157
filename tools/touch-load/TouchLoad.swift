import ArgumentParser
import Foundation
import Histogram
import TouchProtocol

@main
struct TouchLoad: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "touch-load",
    abstract:
      "Load generator for TouchRelay: sources stream touch frames, observers measure end-to-end latency.",
    discussion: """
      Opens --observers observers in each of --sessions sessions, then -c sources spread over the sessions \
      (started evenly over --ramp-up), each sending -r frames per second of realistic touch traces for -d. \
      The schedule is open loop, as wrk2's: frame n of a source is due at a fixed time whatever happened \
      before, and its latency counts from then, so a stalled server cannot hide its stall. Every message an \
      observer gets for a frame (touches, gesture, scene) is matched by its source and seq to the frame's \
      due time; gestures fired by a timer count from the timer's due time (their `t`).

      The report gives two frame rates: over the whole run from the first source's first frame \
      (framesPerSecond), and while every source sends (steadyFramesPerSecond, each source's \
      frames over its own span, summed), which is the load the server held. It also gives \
      touch-load's own send lag, how late each frame left after it was due: that lag is \
      inside every latency figure, so a large one means the generator was behind.

      Progress goes to stderr (one live line on a terminal), the report to stdout. Ctrl-C stops early and \
      still reports; a second Ctrl-C quits at once. Exit status 0, or 1 when nothing could connect.

      Examples:
        touch-load -c 100 -r 60 -d 30s --url ws://127.0.0.1:8080
        touch-load -c 1 -r 120 --observers 1000 --raw -d 20s --json fanout.json --hgrm fanout.hgrm
        touch-load --replay trace.jsonl -c 10 -r 120
        touch-load -c 50 -d 30s --json run.json --html run.html
        touch-load compare before.json after.json --html compare.html
      """)

  /// `compare` is dispatched here rather than as a subcommand: as one, its `--html` would be
  /// taken by this command's own `--html` option.
  static func main() async {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.first == "compare" {
      CompareCommand.main(Array(arguments.dropFirst()))
    } else {
      await main(arguments)
    }
  }

  @Option(
    name: .long,
    help:
      "Server base URL; sources join <url>/v1/source/<session>, observers <url>/v1/observe/<session>."
  )
  var url = "ws://127.0.0.1:8080"

  @Option(
    name: .customLong("source-url"),
    help:
      "A cluster node's base URL for sources (repeat the flag: sources are spread over them in turn); default --url.")
  var sourceURLs: [String] = []

  @Option(
    name: .customLong("observer-url"),
    help:
      "A cluster node's base URL for observers (repeat the flag: observers are spread over them in turn); default --url.")
  var observerURLs: [String] = []

  @Option(
    name: .long,
    help:
      "Send TUIO 1.1 over UDP to this HOST:PORT (the server's --tuio-udp) instead of WebSockets: -c senders at -r for -d; no observers, no latency."
  )
  var tuio: String?

  @Option(name: [.customShort("c"), .long], help: "Number of sources (phones) streaming frames.")
  var connections = 10

  @Option(
    name: [.customShort("r"), .long],
    help: "Frames per second each source sends (its touch sampling rate).")
  var rate = 60.0

  @Option(
    name: [.customShort("d"), .long],
    help: "How long sources send at full rate, after the ramp-up: 30s, 2m, 500ms.")
  var duration = "10s"

  @Option(
    name: .long,
    help: "Time over which the sources are started, evenly spaced. Not in the latency histogram.")
  var rampUp = "0s"

  @Option(
    name: .long,
    help: "Time after the ramp-up whose frames are not in the latency histogram (still counted).")
  var warmup = "0s"

  @Option(
    name: .long,
    help:
      "How often each event loop sends the frames that are due. Latency counts from when a frame was due, so a coarser tick shows as latency; a finer one costs touch-load more wake-ups."
  )
  var tick = "250us"

  @Option(name: .long, help: "Time to wait after the last frame for messages still in flight.")
  var drain = "1s"

  @Option(
    name: .long,
    help:
      "Warn in the report when touch-load's own send lag p99 (how late it sent frames after they were due, which is inside every latency figure) is over this: the generator, not the server, was behind. (default: 2ms, or twice --tick if that is more)"
  )
  var maxSendLag: String?

  @Option(name: .long, help: "Observers per session, connected before the sources.")
  var observers = 1

  @Option(name: .long, help: "Number of sessions; source i joins session i mod this.")
  var sessions = 1

  @Flag(
    name: .long, help: "Observers ask for the raw mirror (?raw=1): one `touches` message per frame."
  )
  var raw = false

  @Option(name: .long, help: "Extra query for observer URLs, e.g. 'gestures=tap,pinch'.")
  var observerQuery: String?

  @Option(name: .long, help: "Session names are <prefix>-<n>.")
  var sessionPrefix = "load"

  @Option(
    name: .long,
    help:
      "Generated traces: \(Scenario.allCases.map(\.rawValue).joined(separator: ", ")); or 'vectors' to replay protocol/vectors."
  )
  var scenario = "mixed"

  @Option(
    name: .long,
    help:
      "Replay JSON-lines recordings (hello/frame messages, one per line) instead of generating; repeatable."
  )
  var replay: [String] = []

  @Option(name: .long, help: "Directory of vectors for --scenario vectors (its .jsonl files).")
  var vectors = "protocol/vectors"

  @Flag(
    name: .long,
    help: "Send empty frames while no finger is down, so every source sends exactly -r frames/s.")
  var sendIdle = false

  @Option(
    name: .long,
    help:
      "Samples per message: more than 1 sends `frames` messages of N samples, each when its last sample is due, at the same -r samples per second (a device sending the coalesced samples of a display frame)."
  )
  var samplesPerMessage = 1

  @Option(name: .long, help: "Device surface in points, WIDTHxHEIGHT.")
  var device = "412x915"

  @Option(
    name: .long, help: "Seed of the trace generator (runs with the same seed send the same traces)."
  )
  var seed: UInt64 = 1

  @Option(name: .long, help: "Event loop threads for all connections (default: one per core).")
  var threads = ProcessInfo.processInfo.activeProcessorCount

  @Option(name: .long, help: "Connections being opened at once.")
  var connectConcurrency = 64

  @Option(name: .long, help: "Seconds allowed for TCP connect plus the WebSocket upgrade.")
  var connectTimeout = 5.0

  @Flag(name: .long, help: "Do not ask for the touchrelay.v1 subprotocol.")
  var noSubprotocol = false

  @Option(
    name: .long,
    help: "Write the full report (totals, per-second series, errors) as JSON to this file.")
  var json: String?

  @Option(
    name: .long,
    help: "Write the latency distribution in HdrHistogram's percentile format (ms) to this file.")
  var hgrm: String?

  @Option(
    name: .long,
    help:
      "Write the report as one self-contained HTML page (verdict, latency distribution, per-second timeline, errors) to this file."
  )
  var html: String?

  @Option(name: .long, help: "Seconds between progress updates.")
  var progressInterval = 1.0

  @Flag(name: [.customShort("q"), .long], help: "No progress output.")
  var quiet = false

  mutating func validate() throws {
    guard connections >= 0 else { throw ValidationError("-c must be 0 or more") }
    guard rate > 0, rate <= 10_000 else { throw ValidationError("-r must be in (0, 10000]") }
    guard sessions >= 1 else { throw ValidationError("--sessions must be at least 1") }
    guard observers >= 0 else { throw ValidationError("--observers must be 0 or more") }
    guard threads >= 1 else { throw ValidationError("--threads must be at least 1") }
    guard samplesPerMessage >= 1, samplesPerMessage <= Limits().maxFramesPerMessage else {
      throw ValidationError("--samples-per-message must be from 1 to \(Limits().maxFramesPerMessage)")
    }
    for (name, value) in [
      ("-d", duration), ("--ramp-up", rampUp), ("--warmup", warmup), ("--drain", drain),
      ("--max-send-lag", maxSendLag ?? "0"),
    ] {
      guard parseDuration(value) != nil else {
        throw ValidationError("\(name): '\(value)' is not a duration (30s, 2m, 500ms)")
      }
    }
    guard let t = parseDuration(tick), t >= 0.000_05, t <= 1 else {
      throw ValidationError("--tick: '\(tick)' must be a duration from 50us to 1s")
    }
    guard parseDevice(device) != nil else {
      throw ValidationError("--device: expected WIDTHxHEIGHT, got '\(device)'")
    }
    if replay.isEmpty, scenario != "vectors", Scenario(rawValue: scenario) == nil {
      throw ValidationError("--scenario: unknown '\(scenario)'")
    }
    while url.hasSuffix("/") { url.removeLast() }
    for u in sourceURLs + observerURLs where !(u.hasPrefix("ws://") || u.hasPrefix("wss://")) {
      throw ValidationError("--source-url/--observer-url: expected ws:// or wss://, got '\(u)'")
    }
  }

  func run() async throws {
    if let tuio {
      let size = parseDevice(device)!
      let r = try TUIOLoad.run(
        target: tuio, sources: connections, rate: rate, duration: parseDuration(duration)!,
        scenario: Scenario(rawValue: scenario) ?? .mixed,
        device: Device(name: "touch-load", width: size.0, height: size.1),
        seed: seed)
      print("tuio: \(connections) senders, \(r.bundles) bundles sent, \(r.failed) failed")
      return
    }
    let trace: TraceSource
    if !replay.isEmpty {
      trace = .recording(try TraceLoader.load(files: replay))
    } else if scenario == "vectors" {
      trace = .recording(try TraceLoader.load(vectors: vectors))
    } else {
      trace = .generated(Scenario(rawValue: scenario)!)
    }
    let size = parseDevice(device)!
    var dev = Device(name: "touch-load", width: size.0, height: size.1)
    if case .recording(let r) = trace, let recorded = r.device { dev = recorded }
    var plan = Plan(
      baseURL: url, sources: connections, rate: rate, duration: parseDuration(duration)!,
      rampUp: parseDuration(rampUp)!, warmup: parseDuration(warmup)!, drain: parseDuration(drain)!,
      sessions: sessions, observersPerSession: observers, raw: raw, observerQuery: observerQuery,
      sessionPrefix: sessionPrefix, trace: trace, sendIdle: sendIdle, samplesPerMessage: samplesPerMessage,
      device: dev, seed: seed,
      threads: threads, tick: parseDuration(tick)!,
      // A frame can wait up to one tick by design: the default leaves room for two.
      maxSendLag: maxSendLag.flatMap(parseDuration) ?? max(0.002, 2 * parseDuration(tick)!),
      connectConcurrency: connectConcurrency, connectTimeout: connectTimeout,
      subprotocol: !noSubprotocol,
      progressInterval: progressInterval)
    plan.sourceBases = sourceURLs.map(Self.trimmed)
    plan.observerBases = observerURLs.map(Self.trimmed)

    let run = try await LoadRun(plan: plan)
    let watcher = SignalWatcher { run.interrupt() }
    let progress = ProgressPrinter(enabled: !quiet, clock: run.clock)
    let (report, histogram) = await run.run(progress: progress)
    withExtendedLifetime(watcher) {}

    print(report.text)
    if let json {
      try report.json().write(to: URL(fileURLWithPath: json))
    }
    if let html {
      try Data(ReportPage.html(report).utf8).write(to: URL(fileURLWithPath: html))
    }
    if let hgrm {
      try Data(TouchLoadHgrm.text(histogram).utf8).write(to: URL(fileURLWithPath: hgrm))
    }
    let anyConnected = report.sourceConnections.connected + report.observerConnections.connected > 0
    if !anyConnected, report.sourceConnections.attempted + report.observerConnections.attempted > 0 {
      throw ExitCode(1)
    }
  }

  /// A base URL without its trailing slashes.
  static func trimmed(_ url: String) -> String {
    var u = url
    while u.hasSuffix("/") { u.removeLast() }
    return u
  }
}

enum TouchLoadHgrm {
  static func text(_ h: Histogram<UInt64>) -> String { hgrm(h) }
}

/// "30s", "2m", "500ms", "1h", or a plain number of seconds.
func parseDuration(_ s: String) -> Double? {
  let units: [(String, Double)] = [("ms", 0.001), ("us", 0.000_001), ("s", 1), ("m", 60), ("h", 3600)]
  for (suffix, scale) in units where s.hasSuffix(suffix) {
    if let v = Double(s.dropLast(suffix.count)), v >= 0 { return v * scale }
  }
  if let v = Double(s), v >= 0 { return v }
  return nil
}

func parseDevice(_ s: String) -> (Double, Double)? {
  let parts = s.lowercased().split(separator: "x")
  guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]), w > 0, h > 0 else {
    return nil
  }
  return (w, h)
}
