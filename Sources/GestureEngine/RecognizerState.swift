/// A recognizer's state within one touch sequence, as in UIKit and Flutter's arena.
/// Continuous gestures go possible -> began -> changed* -> ended | cancelled; discrete ones
/// go possible -> recognized; either may go possible -> failed.
enum RecognizerState: Sendable, Equatable {
  case possible, began, changed, ended, cancelled, failed, recognized

  /// Began and not yet ended or cancelled: owes observers exactly one ending.
  var isActive: Bool { self == .began || self == .changed }
}
