#if canImport(Glibc)
  import Glibc
#endif

/// The rules for a node's name (`--node-id`): it goes into log lines, a Prometheus label, a
/// JSON field and a cluster bus's channel names and source ids unescaped, so it is kept to
/// characters that need no quoting anywhere, and short.
public enum NodeID {
  public static let maxLength = 64

  /// What `--help` and errors say a name may be.
  public static let allowed = "1 to \(maxLength) of A-Z a-z 0-9 . _ -"

  public static func allows(_ c: Character) -> Bool {
    guard let a = c.asciiValue else { return false }
    return (a >= 0x30 && a <= 0x39) || (a >= 0x41 && a <= 0x5A) || (a >= 0x61 && a <= 0x7A)
      || c == "." || c == "_" || c == "-"
  }

  public static func isValid(_ name: String) -> Bool {
    !name.isEmpty && name.count <= maxLength && name.allSatisfy(allows)
  }

  /// `HOSTNAME-PID`: this machine's short host name (characters not allowed as `-`, cut to fit)
  /// and the process id, unique among the nodes of one machine and of machines named apart.
  static func machineDefault() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    let host =
      gethostname(&buffer, buffer.count) == 0
      ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    let short = host.split(separator: ".").first.map(String.init) ?? ""
    let safe = String(short.prefix(maxLength - 11).map { allows($0) ? $0 : "-" })
    return "\(safe.isEmpty ? "node" : safe)-\(getpid())"
  }
}
