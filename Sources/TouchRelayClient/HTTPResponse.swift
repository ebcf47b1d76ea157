/// A plain HTTP response: the answer to `httpGet`, or the refusal of an upgrade.
public struct HTTPResponse: Sendable, Equatable {
  public var status: Int
  public var headers: [(String, String)]
  public var body: [UInt8]

  public init(status: Int, headers: [(String, String)], body: [UInt8]) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  public var text: String { String(decoding: body, as: UTF8.self) }

  /// First header of that name, case-insensitively.
  public func header(_ name: String) -> String? {
    headers.first { $0.0.lowercased() == name.lowercased() }?.1
  }

  public static func == (a: HTTPResponse, b: HTTPResponse) -> Bool {
    a.status == b.status && a.body == b.body && a.headers.count == b.headers.count
      && zip(a.headers, b.headers).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
  }
}
