import RelayCore

/// Plain HTTP answers on the WebSocket port, by path. Every route is a GET; anything else 404.
struct HTTPRoutes {
  let core: RelayCore
  let config: RelayConfiguration
  let metrics: RelayMetrics

  func respond(to request: HTTPRequest, at rt: Double) -> HTTPResponse {
    switch request.path {
    case "/healthz":
      return HTTPResponse(status: 200, contentType: "application/json", body: core.healthJSON(at: rt))
    case "/metrics" where config.metrics:
      return HTTPResponse(
        status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: metrics.scrape(core))
    default:
      return RecordingDownload.respond(to: request, core: core, config: config)
        ?? ReplayPage.respond(to: request, core: core, config: config)
        ?? WebPages(core: core, config: config).respond(to: request) ?? .notFound
    }
  }
}
