/// A whole HTTP/1.1 answer: a refused upgrade, or a plain HTTP route's. The driver writes it.
public struct HTTPResponse: Sendable {
  public var status: Int
  public var contentType: String
  public var body: [UInt8]
  public var headers: [(String, String)]

  public init(
    status: Int, contentType: String = "text/plain; charset=utf-8", body: [UInt8], headers: [(String, String)] = []
  ) {
    self.status = status
    self.contentType = contentType
    self.body = body
    self.headers = headers
  }

  public init(status: Int, body: String, headers: [(String, String)] = []) {
    self.init(status: status, body: Array(body.utf8), headers: headers)
  }

  public static let notFound = HTTPResponse(status: 404, body: "not found\n")

  public var reasonPhrase: String {
    switch status {
    case 200: return "OK"
    case 400: return "Bad Request"
    case 401: return "Unauthorized"
    case 403: return "Forbidden"
    case 404: return "Not Found"
    case 413: return "Content Too Large"
    case 422: return "Unprocessable Content"
    case 503: return "Service Unavailable"
    default: return "Status"
    }
  }
}
