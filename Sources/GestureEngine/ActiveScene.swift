import TouchProtocol

/// The scene a source runs: one of the articles' apps. Exactly one member is set; they are
/// separate optionals (not enum payloads) so scenes mutate in place, without copying a
/// sketch's lines on every frame.
struct ActiveScene: Sendable {
  private var flatcube: FlatCubeScene?
  private var zoom: ZoomScene?
  private var sketch: SketchScene?

  static let names = [FlatCubeScene.name, ZoomScene.name, SketchScene.name]

  init?(name: String?, device: Device, regions: [Region]) {
    switch name {
    case FlatCubeScene.name?: flatcube = FlatCubeScene(regions: regions)
    case ZoomScene.name?: zoom = ZoomScene(device: device)
    case SketchScene.name?: sketch = SketchScene()
    default: return nil
    }
  }

  var name: String {
    if flatcube != nil { return FlatCubeScene.name }
    if zoom != nil { return ZoomScene.name }
    return SketchScene.name
  }

  /// flatcube counts every tap at once, as its article's one-tap recognizers do.
  var defaultTapMaxCount: Int { flatcube != nil ? 1 : 2 }

  var state: JSONValue {
    if let s = flatcube { return s.state }
    if let s = zoom { return s.state }
    return sketch?.state ?? .null
  }

  /// Returns true when the state changed.
  mutating func consume(_ notes: [ArenaNote], deferredTaps: Bool) -> Bool {
    var changed = false
    for n in notes {
      let c: Bool? =
        flatcube?.consume(n, deferredTaps: deferredTaps) ?? zoom?.consume(n) ?? sketch?.consume(n)
      if c == true { changed = true }
    }
    return changed
  }

  mutating func control(_ c: Control) -> Result<Bool, ProtocolError> {
    if flatcube != nil { return flatcube!.control(c) }
    if zoom != nil { return zoom!.control(c) }
    return sketch!.control(c)
  }

  /// A repeated hello changed the surface or the regions; returns true when the state changed.
  mutating func update(device: Device, regions: [Region]) -> Bool {
    if let old = flatcube?.regions {
      flatcube!.regions = regions
      return old != regions
    }
    if let before = zoom?.state {
      zoom!.resize(device)
      return zoom!.state != before
    }
    return false
  }
}
