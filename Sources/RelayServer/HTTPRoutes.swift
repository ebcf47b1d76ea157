/// Plain HTTP answers on the WebSocket port, by path. Every route is a GET; anything else 404.
enum HTTPRoutes {
  static func respond(to request: HTTPRequest, relay: Relay) -> HTTPResponse {
    switch request.path {
    case "/healthz":
      return HTTPResponse(status: 200, contentType: "application/json", body: relay.healthJSON())
    case "/metrics" where relay.config.metrics:
      return HTTPResponse(
        status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: relay.metrics.scrape(relay: relay))
    default:
      return RecordingDownload.respond(to: request, relay: relay) ?? WebPages.respond(to: request, relay: relay) ?? .notFound
    }
  }
}
