#if canImport(Glibc)
  import Glibc
#endif

/// What `--host` becomes for libwebsockets, worked out before lws sees it.
///
/// lws 4.1 takes its `iface` as an interface name or a numeric address, and gets two cases
/// wrong: on a listener with IPv6 on (its default) it parses a numeric IPv4 address into the
/// IPv6 socket address without converting it, so `127.0.0.1` was bound as the wildcard, every
/// interface of the machine; and a host name, which it takes for an interface that does not
/// exist, leaves the vhost without a listener while the context starts. So: an IPv4 address
/// gets a listener with IPv6 off, a host name is resolved here (its first IPv4 address, else
/// its first IPv6 one), and an interface name or an IPv6 address goes to lws as it is.
struct ListenAddress: Equatable {
  /// What lws gets as `iface`; nil: every interface.
  let iface: String?
  /// False: the listener is IPv4 only (`LWS_SERVER_OPTION_DISABLE_IPV6`).
  let ipv6: Bool
  /// Only this machine can connect.
  let isLoopback: Bool

  struct Unresolvable: Error, CustomStringConvertible {
    let host: String
    let why: String
    var description: String { "cannot listen on host '\(host)': \(why)" }
  }

  static func resolve(_ host: String) throws -> ListenAddress {
    let name = unbracketed(host)
    if name.isEmpty { return ListenAddress(iface: nil, ipv6: true, isLoopback: false) }
    if let v4 = ipv4(name) { return ListenAddress(iface: name, ipv6: false, isLoopback: v4.first == 127) }
    if let v6 = ipv6(name) {
      let loopback =
        v6 == [UInt8](repeating: 0, count: 15) + [1] || (Array(v6.prefix(12)) == mappedPrefix && v6[12] == 127)
      return ListenAddress(iface: name, ipv6: true, isLoopback: loopback)
    }
    if if_nametoindex(name) != 0 {
      let loopback = interfaceAddresses().first { $0.name == name }?.loopback ?? false
      return ListenAddress(iface: name, ipv6: true, isLoopback: loopback)
    }
    let addresses = try lookUp(name)
    guard let first = addresses.first(where: { ipv4($0) != nil }) ?? addresses.first else {
      throw Unresolvable(host: host, why: "no address")
    }
    return try resolve(first)
  }

  /// How a URL names this listener (the start-up line): a host name as given, an address as it
  /// is, an interface by its address (IPv4 first; `ws://lo:8080` is no URL), every interface as
  /// the wildcard it listens on. IPv6 in brackets.
  func urlHost(given host: String) -> String {
    let name = Self.unbracketed(host)
    guard let iface else { return "[::]" }
    let numeric = Self.ipv4(name) != nil || Self.ipv6(name) != nil
    let shown: String
    if !numeric && if_nametoindex(name) == 0 {
      shown = name  // a host name, resolved to `iface`
    } else if !numeric {
      shown = Self.interfaceAddress(iface) ?? iface
    } else {
      shown = iface
    }
    return Self.ipv6(shown) != nil ? "[\(shown)]" : shown
  }

  /// `[::1]`, as in a URL, is `::1`.
  private static func unbracketed(_ host: String) -> String {
    host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
  }

  /// Why binding `port` here fails, as the system says it (nil: it does not), to explain a
  /// listener lws could not create. An interface name is not checked.
  func bindError(port: Int) -> String? {
    guard let iface else { return nil }
    var hints = addrinfo()
    hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(iface, String(port), &hints, &list) == 0, let ai = list else { return nil }
    defer { freeaddrinfo(list) }
    let fd = socket(ai.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var on: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
    guard bind(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) != 0 else { return nil }
    return String(cString: strerror(errno))
  }

  private static let mappedPrefix = [UInt8](repeating: 0, count: 10) + [0xff, 0xff]

  private static func ipv4(_ s: String) -> [UInt8]? {
    var a = in_addr()
    guard inet_pton(AF_INET, s, &a) == 1 else { return nil }
    return withUnsafeBytes(of: a) { Array($0) }
  }

  private static func ipv6(_ s: String) -> [UInt8]? {
    var a = in6_addr()
    guard inet_pton(AF_INET6, s, &a) == 1 else { return nil }
    return withUnsafeBytes(of: a) { Array($0) }
  }

  /// For a listener on every interface, the addresses other machines can reach it on: each
  /// up interface's addresses that are neither loopback nor link-local (IPv4 only for an
  /// IPv4-only listener), IPv4 first, IPv6 in brackets. Empty for any other listener.
  func networkHosts() -> [(interface: String, host: String)] {
    guard iface == nil || iface == "0.0.0.0" || iface == "::" else { return [] }
    let usable = Self.interfaceAddresses().filter { a in
      a.up && !a.loopback && (a.family == AF_INET || (ipv6 && !a.isLinkLocal))
    }
    return (usable.filter { $0.family == AF_INET } + usable.filter { $0.family == AF_INET6 }).map {
      ($0.name, $0.family == AF_INET6 ? "[\($0.host)]" : $0.host)
    }
  }

  /// The interface's first IPv4 address, else its first IPv6 one that is not link-local (a
  /// link-local one needs a zone in a URL).
  static func interfaceAddress(_ name: String) -> String? {
    let mine = interfaceAddresses().filter { $0.name == name }
    return
      (mine.first { $0.family == AF_INET }
      ?? mine.first { $0.family == AF_INET6 && !$0.isLinkLocal })?.host
  }

  private struct InterfaceAddress {
    let name: String
    let family: Int32
    let host: String
    let up: Bool
    let loopback: Bool
    /// An IPv6 link-local address (fe80::...): a URL would need its zone.
    var isLinkLocal: Bool { family == AF_INET6 && host.lowercased().hasPrefix("fe80") }
  }

  /// Every IPv4 and IPv6 address of this machine's interfaces (`getifaddrs`), numeric.
  private static func interfaceAddresses() -> [InterfaceAddress] {
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0 else { return [] }
    defer { freeifaddrs(list) }
    var out: [InterfaceAddress] = []
    var next = list
    while let ifa = next {
      next = ifa.pointee.ifa_next
      guard let sa = ifa.pointee.ifa_addr else { continue }
      let family = Int32(sa.pointee.sa_family)
      let length = family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size
      guard family == AF_INET || family == AF_INET6, let host = numericHost(sa, socklen_t(length)) else { continue }
      let flags = Int32(bitPattern: ifa.pointee.ifa_flags)
      out.append(
        InterfaceAddress(
          name: String(cString: ifa.pointee.ifa_name), family: family, host: host,
          up: flags & Int32(IFF_UP) != 0, loopback: flags & Int32(IFF_LOOPBACK) != 0))
    }
    return out
  }

  private static func numericHost(_ sa: UnsafePointer<sockaddr>, _ length: socklen_t) -> String? {
    var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
    guard getnameinfo(sa, length, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else { return nil }
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The host name's addresses, numeric, in the resolver's order.
  private static func lookUp(_ name: String) throws -> [String] {
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    let rc = getaddrinfo(name, nil, &hints, &list)
    guard rc == 0 else { throw Unresolvable(host: name, why: String(cString: gai_strerror(rc))) }
    defer { freeaddrinfo(list) }
    var out: [String] = []
    var next = list
    while let ai = next {
      if let sa = ai.pointee.ai_addr, let text = numericHost(sa, ai.pointee.ai_addrlen) { out.append(text) }
      next = ai.pointee.ai_next
    }
    return out
  }
}
