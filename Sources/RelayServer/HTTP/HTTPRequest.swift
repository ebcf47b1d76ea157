/// A plain HTTP GET on the server's port, as the routes see it.
struct HTTPRequest {
  var path: String
  var args: [(String, String)]
  /// The `Host` header, if any.
  var host: String?
  /// Whether it came over TLS.
  var isTLS = false
  /// `?token=` or `Authorization: Bearer`, if any.
  var token: String?
  /// The `Origin` header, if any.
  var origin: String?
  /// The client's address, for the logs.
  var peer = "?"
  /// When it came, in wall-clock Unix seconds (what signed tokens' times are checked against).
  var wallClock = 0.0

  func arg(_ name: String) -> String? { args.first { $0.0 == name }?.1 }
}
