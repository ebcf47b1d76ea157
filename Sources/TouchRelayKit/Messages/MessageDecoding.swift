import TouchProtocol
import TouchRelayClient

extension ObserverMessage {
  /// Decodes one text message of the server.
  public static func decode(_ text: String) throws(MessageDecodingError) -> ObserverMessage {
    let value: JSONValue
    do {
      value = try JSONValue.parse(text)
    } catch {
      throw MessageDecodingError(reason: "not JSON", text: text)
    }
    do {
      return try decode(value)
    } catch let reason as MessageReader.Failure {
      throw MessageDecodingError(reason: reason.what, text: text)
    } catch {
      throw MessageDecodingError(reason: "\(error)", text: text)
    }
  }

  static func decode(_ v: JSONValue) throws -> ObserverMessage {
    let r = MessageReader(v)
    switch try r.string("type") {
    case "welcome": return .welcome(try r.welcome())
    case "source":
      let name = try r.string("event")
      guard let event = SourceNotice.Event(rawValue: name) else {
        throw MessageReader.Failure(what: "unknown source event '\(name)'")
      }
      return .source(SourceNotice(event: event, info: try r.sourceInfo(idKey: "source")))
    case "touches": return .touches(try r.touchesMessage())
    case "gesture": return .gesture(try r.gesture())
    case "scene":
      let origin = v["seq"] == nil || v["seq"]!.isNull ? nil : try r.origin()
      return .scene(SceneMessage(source: try r.string("source"), origin: origin, state: try r.member("state")))
    case "dropped": return .dropped(count: try r.int("count"))
    case "error":
      return .error(
        RelayError(
          code: try r.string("code"), message: try r.string("message"), seq: r.optionalInt("seq").map(Int64.init)))
    case let other: throw MessageReader.Failure(what: "unknown type '\(other)'")
    }
  }
}
