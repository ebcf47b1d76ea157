import ArgumentParser

/// `--public-url` / TOUCH_RELAY_PUBLIC_URL: an http(s) URL without a path, trailing slash dropped.
func publicBaseURL(_ raw: String) throws -> String {
  let url = raw.hasSuffix("/") ? String(raw.dropLast()) : raw
  let scheme = ["http://", "https://"].first { url.hasPrefix($0) }
  guard let scheme, url.count > scheme.count,
    !url.dropFirst(scheme.count).contains(where: {
      $0 == "/" || $0 == "?" || $0 == "#" || $0 == " " || $0 == "\""
    })
  else {
    throw ValidationError(
      "public URL '\(raw)' must be http://HOST[:PORT] or https://HOST[:PORT], without a path")
  }
  return url
}
