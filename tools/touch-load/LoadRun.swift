import Foundation
import Histogram
import NIOCore
import NIOPosix
import TouchProtocol
import TouchRelayClient

/// Runs a plan: observers first, then sources ramped up, frames until the end (or Ctrl-C),
/// a drain for messages in flight, and the report.
final class LoadRun: Sendable {
  let plan: Plan
  let group: MultiThreadedEventLoopGroup
  let loops: [any EventLoop]
  let clock: RunClock
  let flags = RunFlags()
  let registry = SourceRegistry()
  let recorders: [NIOLoopBound<LatencyRecorder>]
  let tickers: [NIOLoopBound<SendTicker>]
  private let connectTimes = Locked(makeLatencyHistogram())
  private let sourceStats = Locked(ConnectionSummary())
  private let observerStats = Locked(ConnectionSummary())
  private let observers = Locked([(WebSocketConnection, NIOLoopBound<ObserverState>)]())
  private let sources = Locked([(WebSocketConnection, NIOLoopBound<SourceDriver>)]())
  /// Set once the observers are in: sources start, and the clock of the plan runs, from it.
  private let phase = Locked(
    (
      start: UInt64(0), end: UInt64(0), firstDue: UInt64.max, lastDue: UInt64(0),
      stopped: UInt64.max
    ))

  init(plan: Plan) async throws {
    self.plan = plan
    group = MultiThreadedEventLoopGroup(numberOfThreads: plan.threads)
    loops = Array(group.makeIterator())
    clock = RunClock(epoch: nowNanos())
    var recorders: [NIOLoopBound<LatencyRecorder>] = []
    var tickers: [NIOLoopBound<SendTicker>] = []
    let tick = TimeAmount.nanoseconds(Int64(plan.tick * 1e9))
    for loop in loops {
      let clock = self.clock
      recorders.append(
        try await loop.submit { NIOLoopBound(LatencyRecorder(clock: clock), eventLoop: loop) }.get()
      )
      tickers.append(
        try await loop.submit { NIOLoopBound(SendTicker(eventLoop: loop, tick: tick), eventLoop: loop) }.get())
    }
    self.recorders = recorders
    self.tickers = tickers
  }

  /// Ends the run early (Ctrl-C): sources stop, the report covers what was done.
  func interrupt() {
    flags.stop(interrupted: true)
  }

  var wsConfiguration: WebSocketConfiguration {
    var c = WebSocketConfiguration()
    if !plan.subprotocol { c.subprotocols = [] }
    c.connectTimeout = .milliseconds(Int64(plan.connectTimeout * 1000))
    c.handshakeTimeout = c.connectTimeout
    return c
  }

  func run(progress: ProgressPrinter) async -> (Report, Histogram<UInt64>) {
    progress.phase = "observers"
    let observerCount = plan.sessions * plan.observersPerSession
    await forEach(observerCount, concurrency: plan.connectConcurrency) { i in
      await self.connectObserver(i)
    }
    let start = nowNanos()
    let end = start &+ UInt64((plan.rampUp + plan.duration) * 1e9)
    phase.withLock {
      $0.start = start
      $0.end = end
    }
    // Frames due during the ramp-up and the warm-up are not in the latency histogram.
    let warmupEnd = start &+ UInt64((plan.rampUp + plan.warmup) * 1e9)
    for r in recorders { try? await r.eventLoop.submit { r.value.warmupEnd = warmupEnd }.get() }
    progress.phase = plan.rampUp > 0 ? "ramp-up" : "running"
    let sourcesTask = Task {
      await forEach(plan.sources, concurrency: plan.connectConcurrency) { i in
        await self.runSource(i, start: start, end: end)
      }
    }
    // Report progress until the end or an interrupt.
    var last = nowNanos()
    while !flags.stopping {
      let now = nowNanos()
      if now >= end { break }
      let step = min(UInt64(plan.progressInterval * 1e9), end - now)
      try? await Task.sleep(nanoseconds: min(step, 100_000_000))
      if nowNanos() - last >= UInt64(plan.progressInterval * 1e9) || nowNanos() >= end {
        last = nowNanos()
        if plan.rampUp > 0, last >= start &+ UInt64(plan.rampUp * 1e9) {
          progress.phase = "running"
        }
        await progress.update { (await self.snapshot(), self.connectedCounts()) }
      }
    }
    let interrupted = flags.interrupted
    flags.stop()
    phase.withLock { $0.stopped = nowNanos() }
    sourcesTask.cancel()
    await sourcesTask.value
    await stopDrivers()
    progress.phase = "drain"
    try? await Task.sleep(nanoseconds: UInt64(plan.drain * 1e9))
    let data = await snapshot()
    progress.finish()
    let report = await makeReport(data, interrupted: interrupted)
    await closeAll()
    try? await group.shutdownGracefully()
    return (report, data.latency)
  }

  // MARK: Connections

  private func connectObserver(_ i: Int) async {
    guard !flags.stopping else { return }
    let session = i % plan.sessions
    let loopIndex = i % loops.count
    let loop = loops[loopIndex]
    let recorder = recorders[loopIndex]
    let registry = self.registry
    let flags = self.flags
    observerStats.withLock { $0.attempted += 1 }
    do {
      let state = try await loop.submit {
        NIOLoopBound(
          ObserverState(recorder: recorder.value, registry: registry, flags: flags), eventLoop: loop
        )
      }.get()
      let began = nowNanos()
      let connection = try await WebSocketConnection.connect(
        plan.observerURL(session: session), configuration: wsConfiguration, group: loop
      ) { event in state.value.handle(event) }
      recordConnect(began)
      observers.withLock { $0.append((connection, state)) }
      observerStats.withLock { $0.connected += 1 }
    } catch {
      observerStats.withLock {
        $0.failed += 1
        $0.failures[Self.describe(error), default: 0] += 1
        Self.keepFirst(error, in: &$0)
      }
    }
  }

  /// The full text of a connect error, for the first of its kind.
  private static func keepFirst(_ error: any Error, in stats: inout ConnectionSummary) {
    let kind = describe(error)
    if stats.firstMessages?[kind] == nil { stats.firstMessages?[kind] = "\(error)" }
  }

  private func runSource(_ i: Int, start: UInt64, end: UInt64) async {
    // Spread the sources' starts evenly over the ramp-up.
    let startAt = start &+ UInt64(plan.rampUp * 1e9 * Double(i) / Double(max(plan.sources, 1)))
    let now = nowNanos()
    if startAt > now { try? await Task.sleep(nanoseconds: startAt - now) }
    guard !flags.stopping, !Task.isCancelled else { return }
    let loopIndex = (plan.sessions * plan.observersPerSession + i) % loops.count
    let loop = loops[loopIndex]
    let recorder = recorders[loopIndex]
    let ticker = tickers[loopIndex]
    let flags = self.flags
    sourceStats.withLock { $0.attempted += 1 }
    var opened: WebSocketConnection?
    do {
      let welcome = loop.makePromise(of: String.self)
      let events = try await loop.submit {
        NIOLoopBound(
          SourceEvents(recorder: recorder.value, flags: flags, welcome: welcome), eventLoop: loop)
      }.get()
      let began = nowNanos()
      let connection = try await WebSocketConnection.connect(
        plan.sourceURL(session: i % plan.sessions), configuration: wsConfiguration, group: loop
      ) { event in events.value.handle(event) }
      opened = connection
      recordConnect(began)
      var device = plan.device
      device.name = "\(device.name) \(i)"
      try await connection.send(hello: Hello(device: device))
      let timeout = loop.scheduleTask(in: .seconds(5)) {
        events.value.giveUp(SourceFailure.noWelcome)
      }
      let id = try await welcome.futureResult.get()
      timeout.cancel()
      // Source i sends at phase i/N of the period, as independent devices would: sources that
      // connected together would otherwise send in bursts that no real crowd of phones makes.
      // The first frame is the first slot at least half a period after the welcome.
      let period = plan.periodNanos
      let offset = period * UInt64(i % max(plan.sources, 1)) / UInt64(max(plan.sources, 1))
      let earliest = nowNanos() &+ period / 2
      let origin = start &+ offset
      let first = earliest <= origin ? origin : origin &+ (earliest - origin + period - 1) / period * period
      let schedule = SourceSchedule(firstNanos: first, periodNanos: period)
      registry.register(id: id, schedule)
      phase.withLock {
        $0.firstDue = min($0.firstDue, first)
        $0.lastDue = max($0.lastDue, end)
      }
      let plan = self.plan
      let driver = try await loop.submit {
        let driver = SourceDriver(
          connection: connection, recorder: recorder.value, schedule: schedule, end: end,
          trace: Self.makeTrace(plan, source: i), sendIdle: plan.sendIdle,
          samplesPerMessage: plan.samplesPerMessage)
        ticker.value.add(driver)
        return NIOLoopBound(driver, eventLoop: loop)
      }.get()
      sources.withLock { $0.append((connection, driver)) }
      sourceStats.withLock { $0.connected += 1 }
    } catch {
      if let opened { await opened.close(timeout: .milliseconds(200)) }
      sourceStats.withLock {
        $0.failed += 1
        $0.failures[Self.describe(error), default: 0] += 1
        Self.keepFirst(error, in: &$0)
      }
    }
  }

  static func makeTrace(_ plan: Plan, source i: Int) -> any TouchTrace {
    switch plan.trace {
    case .generated(let scenario):
      return TraceGenerator(
        scenario: scenario, width: plan.device.width, height: plan.device.height, rate: plan.rate,
        seed: plan.seed &+ UInt64(i) &* 0x9E37_79B9)
    case .recording(let r):
      // Sources start at different points of the recording, so they do not move in lockstep.
      return TraceReplay(steps: r.steps, rate: plan.rate, start: i * 7919)
    }
  }

  private func recordConnect(_ began: UInt64) {
    let us = (nowNanos() - began) / 1000
    connectTimes.withLock { $0.record(max(us, 1)) }
  }

  static func describe(_ error: any Error) -> String {
    if let e = error as? WebSocketClientError {
      if let status = e.refusedStatus { return "HTTP \(status)" }
      return "\(e)".split(separator: ":").first.map(String.init) ?? "\(e)"
    }
    return "\(error)"
  }

  private func stopDrivers() async {
    for (_, driver) in sources.current {
      try? await driver.eventLoop.submit { driver.value.stop() }.get()
    }
  }

  private func closeAll() async {
    let all = sources.current.map(\.0) + observers.current.map(\.0)
    await forEach(all.count, concurrency: 256) { i in
      await all[i].close(timeout: .milliseconds(500))
    }
  }

  private func connectedCounts() -> (sources: Int, observers: Int) {
    (sourceStats.current.connected, observerStats.current.connected)
  }

  // MARK: Results

  /// Every loop's recorder merged (each copied on its own loop).
  func snapshot() async -> RecorderData {
    var total = RecorderData()
    for r in recorders {
      if let data = try? await r.eventLoop.submit({ r.value.data }).get() { total.add(data) }
    }
    return total
  }

  private func makeReport(_ d: RecorderData, interrupted: Bool) async -> Report {
    let now = nowNanos()
    let p = phase.current
    let sendingEnd = min(now, p.lastDue, p.stopped)
    let sendingTime =
      p.firstDue == .max || sendingEnd <= p.firstDue ? 0 : Double(sendingEnd - p.firstDue) / 1e9
    let perObserver = observers.current.map { $0.1 }
    var counts: [Int] = []
    for o in perObserver {
      if let n = try? await o.eventLoop.submit({ o.value.messages }).get() { counts.append(n) }
    }
    // Sources start up to a ramp-up (or a connect spread) apart, so `framesPerSecond`, over
    // the whole span, understates the rate while all of them send; this is that rate.
    var steady = 0.0
    for (_, driver) in sources.current {
      if let r = try? await driver.eventLoop.submit({ driver.value.framesPerSecond }).get() { steady += r }
    }
    let elapsed = Double(now - clock.epoch) / 1e9
    var byType: [String: Int] = [:]
    for k in MessageKind.allCases where d.received[k.rawValue] > 0 {
      byType[k.name] = d.received[k.rawValue]
    }
    let series = d.seconds.enumerated().map { (i, s) in
      SecondReport(
        second: i, framesSent: s.sent, messagesReceived: s.received,
        droppedNotices: s.droppedNotices,
        droppedMessages: s.droppedMessages, errors: s.errors,
        latencyP50: LatencySummary(s.latency).p50, latencyP99: LatencySummary(s.latency).p99,
        latencyMax: LatencySummary(s.latency).max)
    }
    let sendLag = LatencySummary(d.sendLag)
    let cpu = Report.CPUTime.current()
    var warnings: [String] = []
    if sendLag.count > 0, sendLag.p99 > plan.maxSendLag * 1000 {
      // A generator that cannot keep its schedule adds its own delay to every latency
      // figure; on a shared machine that is the usual reason a p99 climbs.
      let share = elapsed > 0 ? (cpu.userSeconds + cpu.systemSeconds) / elapsed : 0
      warnings.append(
        String(
          format:
            "touch-load was behind: 1 %% of its frames went out more than %.2f ms after they were due "
            + "(send lag p99, over --max-send-lag %.2f ms), and that delay is inside the latency figures. "
            + "It used %.0f %% of a CPU over the run, with %d event loop thread%@; give it more --threads, "
            + "fewer sources, or a machine of its own.",
          sendLag.p99, plan.maxSendLag * 1000, share * 100, plan.threads, plan.threads == 1 ? "" : "s"))
    }
    return Report(
      config: .init(
        url: plan.baseURL, sources: plan.sources, rate: plan.rate, duration: plan.duration,
        rampUp: plan.rampUp,
        warmup: plan.warmup, sessions: plan.sessions, observersPerSession: plan.observersPerSession,
        raw: plan.raw,
        scenario: plan.trace.name, sendIdle: plan.sendIdle, threads: plan.threads, seed: plan.seed,
        samplesPerMessage: plan.samplesPerMessage),
      interrupted: interrupted, date: ISO8601DateFormatter().string(from: Date()),
      timedFromSecond: p.start == 0
        ? nil : Double(p.start &- clock.epoch) / 1e9 + plan.rampUp + plan.warmup,
      elapsed: elapsed, sendingTime: sendingTime,
      sourceConnections: sourceStats.current, observerConnections: observerStats.current,
      connectTime: LatencySummary(connectTimes.current), framesScheduled: d.framesScheduled,
      framesSent: d.framesSent,
      framesPerSecond: sendingTime > 0 ? Double(d.framesSent) / sendingTime : 0,
      steadyFramesPerSecond: steady,
      messagesReceived: d.receivedTotal,
      messagesPerSecond: sendingTime > 0 ? Double(d.receivedTotal) / sendingTime : 0,
      messagesByType: byType,
      messagesPerObserver: .init(
        min: counts.min() ?? 0,
        mean: counts.isEmpty ? 0 : Double(counts.reduce(0, +)) / Double(counts.count),
        max: counts.max() ?? 0),
      gestures: d.gestures, latency: LatencySummary(d.latency),
      touchLatency: LatencySummary(d.touchLatency), gestureLatency: LatencySummary(d.gestureLatency),
      distributions: [
        "all": PercentilePoint.curve(d.latency), "touches": PercentilePoint.curve(d.touchLatency),
        "gestures": PercentilePoint.curve(d.gestureLatency),
      ],
      sendLag: sendLag,
      timerDrivenMessages: d.timerEvents,
      unmatchedMessages: d.unmatched, outOfOrderMessages: d.outOfOrder,
      warmupSkipped: d.warmupSkipped,
      droppedNotices: d.droppedNotices, droppedMessages: d.droppedMessages,
      serverErrors: d.serverErrors,
      failures: d.failures, firstMessages: d.firstMessages, cpu: cpu, warnings: warnings, series: series)
  }
}

/// Runs `body(0..<count)` with at most `concurrency` at a time.
func forEach(_ count: Int, concurrency: Int, _ body: @escaping @Sendable (Int) async -> Void) async {
  await withTaskGroup(of: Void.self) { group in
    var next = 0
    while next < min(count, max(concurrency, 1)) {
      let i = next
      group.addTask { await body(i) }
      next += 1
    }
    while await group.next() != nil {
      if next < count {
        let i = next
        group.addTask { await body(i) }
        next += 1
      }
    }
  }
}
