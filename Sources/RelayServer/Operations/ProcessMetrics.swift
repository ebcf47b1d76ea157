#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The process metrics every Prometheus client library exports, under their standard names
/// (`process_start_time_seconds`, `process_cpu_seconds_total`, `process_open_fds`,
/// `process_max_fds`, `process_resident_memory_bytes`), read when scraped: a restart shows as
/// a new start time, and a node running out of descriptors before `--max-connections` shows
/// as open over max. swift-prometheus has none of them; swift-metrics-extras' `SystemMetrics`
/// polls on a timer of its own into the process-wide metrics bootstrap, which this server does
/// not use (each server has its own registry).
///
/// A scrape costs `getrusage`, `getrlimit`, a `stat` of `/proc/self/fd` (a listing of it, one
/// entry per connection, on kernels before 6.2) and one read of `/proc/self/statm`; the start
/// time is computed once.
final class ProcessMetrics {
  /// Unix seconds; nil where `/proc` does not say.
  let startTime: Double?

  init() {
    startTime = Self.readStartTime()
  }

  /// User and system CPU time of every thread, in seconds.
  static func cpuSeconds() -> Double {
    var usage = rusage()
    guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
  }

  /// The soft limit on descriptors (what `open` and `accept` fail beyond), read at each scrape:
  /// `prlimit` can change it while the process runs.
  static func maxDescriptors() -> Double? {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
    // RLIM_INFINITY is all ones, which Swift cannot import as a constant of the unsigned type.
    return limit.rlim_cur == rlim_t.max ? Double(Int64.max) : Double(limit.rlim_cur)
  }

  #if os(Linux)
    /// Descriptors open. Linux 6.2 and later give their count as the size of `/proc/self/fd`
    /// (a count of the descriptor table's bits); before, it is 0 and the entries are listed,
    /// one per connection, less the one listing them.
    static func openDescriptors() -> Double? {
      var info = stat()
      if stat("/proc/self/fd", &info) == 0, info.st_size > 0 { return Double(info.st_size) }
      guard let dir = opendir("/proc/self/fd") else { return nil }
      defer { closedir(dir) }
      var count = 0
      while let entry = readdir(dir) {
        if entry.pointee.d_name.0 != UInt8(ascii: ".") { count += 1 }
      }
      return Double(count - 1)
    }

    /// Resident pages (`/proc/self/statm`'s second field) in bytes.
    static func residentBytes() -> Double? {
      guard let text = try? FileContents.bytes(atPath: "/proc/self/statm") else { return nil }
      let fields = text.split(separator: UInt8(ascii: " "))
      guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return nil }
      return Double(pages) * Double(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The process's start (`/proc/self/stat`'s 22nd field: clock ticks after boot) on the wall
    /// clock: now, less the time since boot, plus the start. `/proc/stat`'s `btime`, which the Go
    /// client adds to it instead, is in whole seconds: up to a second off.
    private static func readStartTime() -> Double? {
      guard let stat = try? FileContents.bytes(atPath: "/proc/self/stat") else { return nil }
      // The command name, in parentheses, may hold spaces: the fields are counted after it.
      guard let close = stat.lastIndex(of: UInt8(ascii: ")")) else { return nil }
      let fields = stat[(close + 1)...].split(separator: UInt8(ascii: " "))
      // Field 3 (the state) is the first after the name: field 22 is the 20th.
      guard fields.count > 19, let ticks = Double(String(decoding: fields[19], as: UTF8.self)) else { return nil }
      var boot = timespec()
      var wall = timespec()
      guard clock_gettime(CLOCK_BOOTTIME, &boot) == 0, clock_gettime(CLOCK_REALTIME, &wall) == 0 else { return nil }
      func seconds(_ t: timespec) -> Double { Double(t.tv_sec) + Double(t.tv_nsec) / 1_000_000_000 }
      return seconds(wall) - seconds(boot) + ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
  #else
    static func openDescriptors() -> Double? { nil }
    static func residentBytes() -> Double? { nil }
    private static func readStartTime() -> Double? { nil }
  #endif

  /// The Prometheus text of each metric the system gives, with the client libraries' help texts.
  func emit(into buffer: inout [UInt8]) {
    var text = ""
    func add(_ name: String, _ type: String, _ help: String, _ value: Double?) {
      guard let value else { return }
      text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n"
    }
    add("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.", Self.cpuSeconds())
    add("process_open_fds", "gauge", "Number of open file descriptors.", Self.openDescriptors())
    add("process_max_fds", "gauge", "Maximum number of open file descriptors.", Self.maxDescriptors())
    add("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", Self.residentBytes())
    add("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.", startTime)
    buffer.append(contentsOf: text.utf8)
  }
}
