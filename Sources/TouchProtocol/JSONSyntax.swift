/// Whether bytes are one well-formed JSON value in UTF-8, without building anything: for JSON
/// that the server passes on as it came (a cluster node's messages on the bus).
public enum JSONSyntax {
  public static func isValue(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 32) -> Bool {
    guard UTF8Validator.isValid(bytes) else { return false }
    var scanner = JSONScanner(bytes, maxDepth: maxDepth)
    do {
      scanner.skipWhitespace()
      try scanner.skipValue(depth: 0)
      try scanner.expectEnd()
      return true
    } catch {
      return false
    }
  }
}
