import TouchProtocol

/// The thresholds one platform's own recognizers use, as that platform publishes them: what
/// `hello.config.preset` lays over the engine defaults. Each value, its constant and where it
/// is published are in protocol/gestures.md ("Platform presets"). A nil member is one the
/// platform publishes no value for: the engine default (or the scene's) stays.
///
/// Android dp and Flutter logical pixels are taken as points one for one: all three are the
/// platform's density-independent unit (Flutter's logical pixel is the dp on Android and the
/// point on iOS), about 1/160 inch on a phone, and the protocol's points are the same kind of
/// unit. Velocities published per second are divided by 1000 (the protocol states them per ms).
struct PlatformThresholds: Sendable, Equatable {
  var tapMaxDuration: Double?
  var tapMaxMovement: Double?
  var multiTapInterval: Double?
  var multiTapDistance: Double?
  var longPressDuration: Double?
  var longPressMaxMovement: Double?
  var panThreshold: Double?
  var swipeMinDistance: Double?
  var swipeMinVelocity: Double?

  init(_ preset: GesturePreset) {
    switch preset {
    case .ios:
      // UIKit documents only UILongPressGestureRecognizer's defaults; its tap, pan and swipe
      // thresholds are unpublished.
      longPressDuration = 500  // minimumPressDuration, 0.5 s
      longPressMaxMovement = 10  // allowableMovement, 10 pt
    case .android:
      // ViewConfiguration and what GestureDetector does with it.
      let touchSlop = 8.0  // TOUCH_SLOP (config_viewConfigurationTouchSlop), dp
      let longPressTimeout = 400.0  // DEFAULT_LONG_PRESS_TIMEOUT, ms
      // onSingleTapUp comes only before the long press, within the touch slop.
      tapMaxDuration = longPressTimeout
      tapMaxMovement = touchSlop
      multiTapInterval = 300  // DOUBLE_TAP_TIMEOUT: first up to second down
      multiTapDistance = 100  // DOUBLE_TAP_SLOP: first down to second down, dp
      longPressDuration = longPressTimeout
      longPressMaxMovement = touchSlop  // moving past it removes the LONG_PRESS message
      panThreshold = touchSlop  // onScroll begins past it
      swipeMinDistance = touchSlop  // "a fling must travel the minimum tap distance"
      swipeMinVelocity = 50.0 / 1000  // MINIMUM_FLING_VELOCITY, 50 dp/s
    case .flutter:
      // packages/flutter/lib/src/gestures/constants.dart and the recognizers that use them.
      let touchSlop = 18.0  // kTouchSlop, logical pixels
      let longPressTimeout = 500.0  // kLongPressTimeout
      // A held tap loses the arena to the long press at kLongPressTimeout.
      tapMaxDuration = longPressTimeout
      tapMaxMovement = touchSlop  // PrimaryPointerGestureRecognizer's slop tolerance
      multiTapInterval = 300  // kDoubleTapTimeout: started at the first tap's up
      multiTapDistance = 100  // kDoubleTapSlop
      longPressDuration = longPressTimeout
      longPressMaxMovement = touchSlop
      panThreshold = 36  // kPanSlop = kTouchSlop * 2 (PanGestureRecognizer)
      swipeMinDistance = touchSlop  // isFlingGesture: minFlingDistance defaults to the hit slop
      swipeMinVelocity = 50.0 / 1000  // kMinFlingVelocity, 50 logical pixels/s
    }
  }
}
