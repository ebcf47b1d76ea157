/// Where a peer's pending output stands with the driver.
enum WriteState {
  /// Nothing asked for.
  case idle
  /// Listed to be written when the current callback ends (`LWSDriver.flushWrites`).
  case queuedForFlush
  /// Waiting for its LWS_CALLBACK_SERVER_WRITEABLE.
  case awaitingWritable
}
