#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension SourceInfo {
  private struct Wire: Decodable {
    var id: String
    var device: Device
    var scene: String?
  }

  /// A `SourceInfo` object as `ServerMessage` writes it (another cluster node's), or nil if the
  /// bytes are not one: a device with a name of at most 64 characters and a finite positive
  /// size, an id of at most 64.
  public static func decode(json bytes: UnsafeRawBufferPointer) -> SourceInfo? {
    guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(bytes)) else { return nil }
    let d = wire.device
    guard !wire.id.isEmpty, wire.id.utf8.count <= 64, d.name.utf8.count <= 64, d.width.isFinite, d.height.isFinite,
      d.width > 0, d.height > 0, (wire.scene?.utf8.count ?? 0) <= 64
    else { return nil }
    return SourceInfo(id: wire.id, device: d, scene: wire.scene)
  }
}
