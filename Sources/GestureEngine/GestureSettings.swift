import TouchProtocol

/// The thresholds one source's recognizers run with: `hello.config` laid over the engine
/// defaults (and over the scene's own defaults, e.g. flatcube counts every tap at once), its
/// `preset` first and the members given beside it over that.
struct GestureSettings: Sendable, Equatable {
  var tapMaxDuration = 300.0
  var tapMaxMovement = 10.0
  var multiTapInterval = 300.0
  var multiTapDistance = 40.0
  var tapMaxCount = 2
  var multiFingerTapMaxCount = 1
  var longPressDuration = 500.0
  var longPressMaxMovement = 10.0
  var panThreshold = 10.0
  var panMinTouches = 1
  var panMaxTouches = 10
  var pinchThreshold = 10.0
  var rotationThreshold = 0.2
  var swipeMinDistance = 50.0
  /// Points per millisecond, as the protocol states it.
  var swipeMinVelocity = 0.3
  var velocityWindow = 100.0
  var enabled = GestureKinds.all
  // Beside `enabled`: between them the two one-byte members take one word, not two.
  var deferredTaps = true

  init() {}

  init(config c: GestureConfig?, defaultTapMaxCount: Int = 2) {
    tapMaxCount = defaultTapMaxCount
    guard let c else { return }
    // The preset first, so that every member given beside it overrides it.
    if let name = c.preset, let preset = GesturePreset(rawValue: name) { apply(PlatformThresholds(preset)) }
    deferredTaps = c.tapMode != "immediate"
    tapMaxDuration = c.tapMaxDuration ?? tapMaxDuration
    tapMaxMovement = c.tapMaxMovement ?? tapMaxMovement
    multiTapInterval = c.multiTapInterval ?? multiTapInterval
    multiTapDistance = c.multiTapDistance ?? multiTapDistance
    // Counts below 1 would make no tap reportable, so they are raised to 1.
    tapMaxCount = max(1, c.tapMaxCount ?? tapMaxCount)
    multiFingerTapMaxCount = max(1, c.multiFingerTapMaxCount ?? multiFingerTapMaxCount)
    longPressDuration = c.longPressDuration ?? longPressDuration
    longPressMaxMovement = c.longPressMaxMovement ?? longPressMaxMovement
    panThreshold = c.panThreshold ?? panThreshold
    panMinTouches = c.panMinTouches ?? panMinTouches
    panMaxTouches = max(panMinTouches, c.panMaxTouches ?? panMaxTouches)
    pinchThreshold = max(0, c.pinchThreshold ?? pinchThreshold)
    rotationThreshold = max(0, c.rotationThreshold ?? rotationThreshold)
    swipeMinDistance = c.swipeMinDistance ?? swipeMinDistance
    swipeMinVelocity = c.swipeMinVelocity ?? swipeMinVelocity
    velocityWindow = c.swipeVelocityWindow ?? velocityWindow
    if let names = c.recognizers {
      // Unknown names are ignored so a newer client still works with an older server.
      enabled = GestureKinds(names.compactMap(GestureKind.init(rawValue:)))
    }
  }

  private mutating func apply(_ p: PlatformThresholds) {
    tapMaxDuration = p.tapMaxDuration ?? tapMaxDuration
    tapMaxMovement = p.tapMaxMovement ?? tapMaxMovement
    multiTapInterval = p.multiTapInterval ?? multiTapInterval
    multiTapDistance = p.multiTapDistance ?? multiTapDistance
    longPressDuration = p.longPressDuration ?? longPressDuration
    longPressMaxMovement = p.longPressMaxMovement ?? longPressMaxMovement
    panThreshold = p.panThreshold ?? panThreshold
    swipeMinDistance = p.swipeMinDistance ?? swipeMinDistance
    swipeMinVelocity = p.swipeMinVelocity ?? swipeMinVelocity
  }
}
