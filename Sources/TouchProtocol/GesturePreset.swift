/// A platform whose gesture thresholds `hello.config.preset` asks for (protocol/gestures.md,
/// "Platform presets"): a source built on that platform's toolkit gets taps, long presses,
/// pans and swipes decided as its own recognizers would decide them.
public enum GesturePreset: String, Sendable, CaseIterable, Codable {
  case ios
  case android
  case flutter

  /// The valid names as an error message lists them: `"ios", "android" or "flutter"`.
  public static var listed: String {
    let names = allCases.map { "\"\($0.rawValue)\"" }
    return names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
  }
}
