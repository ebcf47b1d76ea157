/// Names a cluster uses on the bus (node ids, the channel prefix): 1 to 64 of
/// `[A-Za-z0-9._-]`, so they can stand in channel names and source ids as they are.
public enum ClusterName {
  public static func isAllowed(_ c: Character) -> Bool {
    guard let a = c.asciiValue else { return false }
    return (a >= 0x30 && a <= 0x39) || (a >= 0x41 && a <= 0x5A) || (a >= 0x61 && a <= 0x7A) || a == 0x2E || a == 0x5F
      || a == 0x2D
  }

  public static func isValid(_ s: String) -> Bool {
    !s.isEmpty && s.count <= 64 && s.allSatisfy(isAllowed)
  }
}
