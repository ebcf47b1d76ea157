/// A JWS protected header, as far as the relay reads it.
public struct JOSEHeader: Equatable, Sendable {
  /// As the token says; compared with the key's own algorithm, never used to choose one.
  public let algorithm: String
  public let keyID: String?

  /// From the decoded header bytes. `crit` is refused: it names extensions the token says must
  /// be understood (RFC 7515 §4.1.11), and the relay understands none.
  public init(json bytes: [UInt8]) throws(TokenRefusal) {
    let value: JOSEJSON
    do {
      value = try JOSEJSON.parse(bytes)
    } catch {
      throw .malformed("header is not JSON")
    }
    guard let members = value.object else { throw .malformed("header is not an object") }
    guard let alg = members["alg"]?.string else { throw .malformed("header has no alg") }
    if members["crit"] != nil { throw .malformed("header has crit") }
    let kid = members["kid"]
    if let kid, kid.string == nil { throw .malformed("kid is not a string") }
    algorithm = alg
    keyID = kid?.string
  }
}
