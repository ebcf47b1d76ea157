extension Array {
  /// Empties the array and keeps its storage, as `removeAll(keepingCapacity: true)` does, but
  /// from the end, one element at a time. That one goes through the generic `replaceSubrange`,
  /// costly even for an array of one plain value (PERFORMANCE.md has the figure); the lists of
  /// the per-frame path hold a few elements, each cheap to remove here.
  @inlinable
  public mutating func removeAllKeepingStorage() {
    while !isEmpty { removeLast() }
  }
}
