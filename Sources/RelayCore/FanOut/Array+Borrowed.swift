extension Array where Element: AnyObject {
  /// Calls `body` with the elements from `start` on, each borrowed from this array's storage:
  /// a `for` loop over class references retains and releases every one, which on a fan-out
  /// is a pair per delivery. This copy of the array keeps them alive meanwhile, so `body` may
  /// change the array it came from (which then gets storage of its own).
  @inline(__always)
  func forEachBorrowed(from start: Int = 0, _ body: (Element) -> Void) {
    withUnsafeBufferPointer { elements in
      for i in start..<elements.count {
        Unmanaged.passUnretained(elements[i])._withUnsafeGuaranteedRef { body($0) }
      }
    }
  }

  /// `firstIndex(where:)` with each element borrowed, as in `forEachBorrowed`.
  @inline(__always)
  func firstIndexBorrowed(where predicate: (Element) -> Bool) -> Int? {
    withUnsafeBufferPointer { elements in
      for i in 0..<elements.count
      where Unmanaged.passUnretained(elements[i])._withUnsafeGuaranteedRef({ predicate($0) }) {
        return i
      }
      return nil
    }
  }
}
