#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A whole file's bytes, read or written at once: the key files, the tokens file, a recording
/// to replay, its drawing. A failure says why as the system does ("No such file or
/// directory"), without Foundation's error types.
public enum FileContents {
  public struct Failure: Error, CustomStringConvertible {
    public let description: String
  }

  public static func bytes(atPath path: String) throws(Failure) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw Failure(description: String(cString: strerror(errno))) }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n == 0 { return bytes }
      if n < 0 {
        if errno == EINTR { continue }
        throw Failure(description: String(cString: strerror(errno)))
      }
      bytes.append(contentsOf: chunk[..<n])
    }
  }

  /// Creates or truncates the file at `path` (mode 0644 before the umask) and writes `bytes`.
  public static func store(_ bytes: [UInt8], atPath path: String) throws(Failure) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw Failure(description: String(cString: strerror(errno))) }
    var rest = bytes[...]
    while !rest.isEmpty {
      let n = rest.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else {
        let why = String(cString: strerror(errno))
        close(fd)
        throw Failure(description: why)
      }
      rest = rest.dropFirst(n)
    }
    guard close(fd) == 0 else { throw Failure(description: String(cString: strerror(errno))) }
  }
}
