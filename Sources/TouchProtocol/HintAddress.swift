/// The address of an array's heap buffer (its header, then its elements), found without
/// reading the buffer: `withUnsafeBytes` would read the count from the header, the very
/// cache miss a prefetch is meant to hide. A native array is one reference to that buffer.
/// Only ever a prefetch hint: nothing reads or writes through it. Shared by the engine (its
/// buffers) and the relay core (a session's observers); inlinable, as both call it per frame.
@inlinable
public func hintAddress<T>(of array: [T]) -> UnsafeRawPointer {
  unsafeBitCast(array, to: UnsafeRawPointer.self)
}

/// The header before a native array's first element.
@inlinable
public var arrayHeaderBytes: Int { 32 }
