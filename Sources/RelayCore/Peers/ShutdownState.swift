/// Where the relay is in its life: serving, draining its peers after `requestShutdown`, or
/// finished (every peer gone or cut, `.finished` emitted).
enum ShutdownState {
  case serving, stopping, finished
}
