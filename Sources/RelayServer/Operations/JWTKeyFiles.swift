import SignedTokens

/// The `--jwt-key` files, read at start-up and on SIGHUP: every key of every file is in force
/// at once, so a key can be added before tokens signed with it appear and removed after the
/// last of them has expired.
enum JWTKeyFiles {
  /// Every key in `paths`, and how many JWKS entries were left out (not for HS256, ES256 or
  /// RS256 signatures). Any file that cannot be read or gives no key is an error.
  static func load(paths: [String]) throws -> (keys: [VerificationKey], skipped: Int) {
    var keys: [VerificationKey] = []
    var skipped = 0
    for path in paths {
      let data: [UInt8]
      do {
        data = try FileContents.bytes(atPath: path)
      } catch {
        throw ConfigurationError("cannot read JWT key file '\(path)': \(error)")
      }
      do {
        let file = try KeyFile.parse(data)
        keys += file.keys
        skipped += file.skipped
      } catch {
        throw ConfigurationError("JWT key file '\(path)': \(error)")
      }
    }
    return (keys, skipped)
  }

  /// The verifier `configuration` asks for, with its keys read now.
  static func verifier(for configuration: RelayConfiguration) throws -> TokenVerifier {
    guard !configuration.jwtKeyFiles.isEmpty else { return TokenVerifier() }
    let keys = try load(paths: configuration.jwtKeyFiles).keys
    return TokenVerifier(keys: keys, leeway: configuration.jwtLeeway, audience: configuration.jwtAudience)
  }
}
