import Crypto
import _CryptoExtras

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// What a `--jwt-key` file holds, told apart by its contents: a JWKS (`{"keys": [...]}`) or a
/// single JWK (a JSON object with `kty`), a PEM public key (P-256 for ES256, RSA for RS256),
/// or else an HS256 secret: the file's bytes less one trailing line break. A file that looks
/// like JSON or PEM and does not parse is an error, never taken for a secret.
public enum KeyFile {
  /// The keys in `bytes`, and how many JWKS entries were left out because they are not for
  /// signatures the relay verifies (`use` other than `sig`, another `alg`, `kty` or curve).
  public static func parse(_ bytes: [UInt8]) throws(KeyFileError) -> (keys: [VerificationKey], skipped: Int) {
    let text = bytes.drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
    if text.first == UInt8(ascii: "{") { return try parseJSON(Array(text)) }
    if text.starts(with: Array("-----BEGIN".utf8)) {
      return ([try parsePEM(String(decoding: text, as: UTF8.self))], 0)
    }
    var secret = bytes[...]
    if secret.last == 0x0A { secret = secret.dropLast() }
    if secret.last == 0x0D { secret = secret.dropLast() }
    guard secret.count >= VerificationKey.minimumSecretBytes else {
      throw KeyFileError(
        "an HS256 secret must be at least \(VerificationKey.minimumSecretBytes) bytes (this one has \(secret.count))")
    }
    return ([VerificationKey(id: nil, material: .hmac(SymmetricKey(data: Array(secret))))], 0)
  }

  private static func parsePEM(_ pem: String) throws(KeyFileError) -> VerificationKey {
    // `firstRange`, not `contains`: swift-crypto 3 imports Foundation, whose `contains` would
    // win here and link Foundation into the server (ARCHITECTURE.md, "Memory per process").
    let isPKCS1 = pem.firstRange(of: "-----BEGIN RSA PUBLIC KEY-----") != nil
    guard pem.firstRange(of: "-----BEGIN PUBLIC KEY-----") != nil || isPKCS1 else {
      throw KeyFileError("a PEM key file must hold a public key (BEGIN PUBLIC KEY), not a private key or a certificate")
    }
    if !isPKCS1, let key = try? P256.Signing.PublicKey(pemRepresentation: pem) {
      return VerificationKey(id: nil, material: .p256(key))
    }
    let components =
      pemBody(pem).flatMap {
        isPKCS1 ? RSAPublicKeyDER.components(pkcs1: $0) : RSAPublicKeyDER.components(subjectPublicKeyInfo: $0)
      }
    guard let (n, e) = components, let key = try? _RSA.Signing.PublicKey(n: n, e: e),
      key.keySizeInBits >= VerificationKey.minimumRSABits
    else {
      throw KeyFileError(
        "the PEM public key is neither a P-256 key (ES256) nor an RSA key of at least "
          + "\(VerificationKey.minimumRSABits) bits (RS256)"
      )
    }
    return VerificationKey(id: nil, material: .rsa(key))
  }

  /// The DER bytes of the first PEM block: the base64 between its BEGIN and END lines.
  private static func pemBody(_ pem: String) -> [UInt8]? {
    var body = ""
    var inside = false
    for line in pem.split(whereSeparator: \.isNewline) {
      // The line without the spaces around it (`split` took the line breaks).
      let text = String(line.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
      if text.hasPrefix("-----BEGIN ") {
        inside = true
      } else if text.hasPrefix("-----END ") {
        return inside ? Data(base64Encoded: body).map(Array.init) : nil
      } else if inside {
        body += text
      }
    }
    return nil
  }

  private static func parseJSON(_ bytes: [UInt8]) throws(KeyFileError) -> (keys: [VerificationKey], skipped: Int) {
    let value: JOSEJSON
    do {
      value = try JOSEJSON.parse(bytes)
    } catch {
      throw KeyFileError("not valid JSON: \(error)")
    }
    let entries: [JOSEJSON]
    if let keys = value["keys"] {
      guard let list = keys.array else { throw KeyFileError("a JWKS's keys must be a list") }
      entries = list
    } else if value["kty"] != nil {
      entries = [value]
    } else {
      throw KeyFileError("a JSON key file must be a JWKS ({\"keys\": [...]}) or a JWK (with kty)")
    }
    var keys: [VerificationKey] = []
    var skipped = 0
    for (i, entry) in entries.enumerated() {
      guard let jwk = entry.object else { throw KeyFileError("key \(i) is not a JSON object") }
      if let key = try parseJWK(jwk, index: i) { keys.append(key) } else { skipped += 1 }
    }
    guard !keys.isEmpty else { throw KeyFileError("no key for HS256, ES256 or RS256 signatures") }
    return (keys, skipped)
  }

  /// One JWK (RFC 7517 §4, RFC 7518 §6); nil for one that is not for verifying the relay's
  /// algorithms. Without `alg`, the algorithm follows from `kty` (and `crv`), never from a token.
  private static func parseJWK(_ jwk: [String: JOSEJSON], index i: Int) throws(KeyFileError) -> VerificationKey? {
    func text(_ name: String) throws(KeyFileError) -> String? {
      guard let v = jwk[name] else { return nil }
      guard let s = v.string else { throw KeyFileError("key \(i): \(name) is not a string") }
      return s
    }
    func bytes(_ name: String) throws(KeyFileError) -> [UInt8] {
      guard let s = try text(name) else { throw KeyFileError("key \(i): no \(name)") }
      guard let b = Base64URL.decode(s), !b.isEmpty else { throw KeyFileError("key \(i): \(name) is not base64url") }
      return b
    }
    let kid = try text("kid")
    let name = kid.map { "key '\($0)'" } ?? "key \(i)"
    if let use = try text("use"), use != "sig" { return nil }
    if let ops = jwk["key_ops"] {
      guard let list = ops.array?.compactMap(\.string) else { throw KeyFileError("\(name): key_ops is not a list") }
      if !list.contains("verify") { return nil }
    }
    let alg = try text("alg")
    guard let kty = try text("kty") else { throw KeyFileError("\(name): no kty") }
    let material: VerificationKey.Material
    switch kty {
    case "oct":
      guard alg == nil || alg == JWTAlgorithm.hs256.rawValue else { return nil }
      let k = try bytes("k")
      guard k.count >= VerificationKey.minimumSecretBytes else {
        throw KeyFileError("\(name): an HS256 secret must be at least \(VerificationKey.minimumSecretBytes) bytes")
      }
      material = .hmac(SymmetricKey(data: k))
    case "EC":
      guard alg == nil || alg == JWTAlgorithm.es256.rawValue, try text("crv") == "P-256" else { return nil }
      // RFC 7518 §6.2.1.2 asks for full-length coordinates, but PyJWT before 2.8 (Debian 12's
      // 2.6) writes them without their leading zero bytes, one key in 64: such a coordinate is
      // padded back. The point itself is still checked.
      let x = Self.padded(try bytes("x"), to: 32)
      let y = Self.padded(try bytes("y"), to: 32)
      guard x.count == 32, y.count == 32, let key = try? P256.Signing.PublicKey(rawRepresentation: x + y) else {
        throw KeyFileError("\(name): x and y are not a point on P-256")
      }
      material = .p256(key)
    case "RSA":
      guard alg == nil || alg == JWTAlgorithm.rs256.rawValue else { return nil }
      let n = try bytes("n")
      let e = try bytes("e")
      guard let key = try? _RSA.Signing.PublicKey(n: n, e: e) else {
        throw KeyFileError("\(name): n and e are not an RSA key")
      }
      guard key.keySizeInBits >= VerificationKey.minimumRSABits else {
        throw KeyFileError("\(name): RSA keys must have at least \(VerificationKey.minimumRSABits) bits")
      }
      material = .rsa(key)
    default:
      return nil
    }
    return VerificationKey(id: kid, material: material)
  }

  /// `bytes` with leading zero bytes put back up to `count` (no longer bytes are cut).
  static func padded(_ bytes: [UInt8], to count: Int) -> [UInt8] {
    bytes.count < count ? [UInt8](repeating: 0, count: count - bytes.count) + bytes : bytes
  }
}
