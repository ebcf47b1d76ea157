extension Array {
  /// Empties the array and keeps its storage, as `removeAll(keepingCapacity: true)` does, but
  /// from the end, one element at a time. That one goes through the generic `replaceSubrange`,
  /// 70–90 instructions even for an array of one plain value; the lists of the per-frame path
  /// hold a few elements, each a few instructions to remove here.
  @inlinable
  public mutating func removeAllKeepingStorage() {
    while !isEmpty { removeLast() }
  }
}
