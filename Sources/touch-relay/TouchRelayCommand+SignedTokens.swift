import ArgumentParser
import Foundation
import RelayServer

extension TouchRelayCommand {
  /// `--jwt-key`, `--jwt-leeway`, `--jwt-audience` (flag, else environment variable): the
  /// files must be readable now; what they hold is checked when the server starts.
  func resolveSignedTokens(_ c: inout RelayConfiguration) throws {
    let env = ProcessInfo.processInfo.environment
    c.jwtKeyFiles =
      jwtKey.isEmpty
      ? (env["TOUCH_RELAY_JWT_KEY"]?.split(separator: ",").map {
        String($0).trimmingCharacters(in: .whitespaces)
      }.filter { !$0.isEmpty } ?? [])
      : jwtKey
    for path in c.jwtKeyFiles where !FileManager.default.isReadableFile(atPath: path) {
      throw ValidationError("cannot read JWT key file '\(path)'")
    }
    if let leeway = jwtLeeway ?? env["TOUCH_RELAY_JWT_LEEWAY"].flatMap({ Double($0) }) {
      c.jwtLeeway = leeway
    } else if let raw = env["TOUCH_RELAY_JWT_LEEWAY"] {
      throw ValidationError("TOUCH_RELAY_JWT_LEEWAY='\(raw)' is not a valid value")
    }
    guard c.jwtLeeway.isFinite, (0...3600).contains(c.jwtLeeway) else {
      throw ValidationError("jwt leeway must be from 0 to 3600 seconds")
    }
    c.jwtAudience = jwtAudience ?? env["TOUCH_RELAY_JWT_AUDIENCE"]
    if c.jwtAudience?.isEmpty == true { throw ValidationError("jwt audience must not be empty") }
  }
}
