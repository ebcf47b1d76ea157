/// Whoever made a `RawSocket` hears its events here, on the service thread. A connection
/// (`RawSocket.connect`) is `connected`, then `received` and `writable`, then `closed`; an
/// adopted descriptor (`RawSocket.adopt`) is `readable` whenever it has something to read.
/// Each owner implements the events its sockets have; the others do nothing.
protocol RawSocketOwner: AnyObject {
  func rawSocketConnected(_ socket: RawSocket)
  /// Bytes a connection read (valid during the call only).
  func rawSocket(_ socket: RawSocket, received bytes: UnsafeRawBufferPointer)
  /// The adopted descriptor is readable: its owner reads it (a datagram's sender comes with it).
  func rawSocketReadable(_ socket: RawSocket)
  /// The socket takes more, after `askForWritable`.
  func rawSocketWritable(_ socket: RawSocket)
  /// The socket is gone: closed by the other end, `cut`, or never connected (`error`, when
  /// libwebsockets says why). Another socket may already have taken its place with the owner.
  func rawSocketClosed(_ socket: RawSocket, error: String?)
}

extension RawSocketOwner {
  func rawSocketConnected(_ socket: RawSocket) {}
  func rawSocket(_ socket: RawSocket, received bytes: UnsafeRawBufferPointer) {}
  func rawSocketReadable(_ socket: RawSocket) {}
  func rawSocketWritable(_ socket: RawSocket) {}
  func rawSocketClosed(_ socket: RawSocket, error: String?) {}
}
