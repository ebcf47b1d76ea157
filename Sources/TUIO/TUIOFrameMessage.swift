import OSC

/// What one TUIO bundle says about cursors (pointers), read from its OSC messages: TUIO 1.1's
/// `/tuio/2Dcur` `source`, `alive`, `set` and `fseq`, or TUIO 2.0's `/tuio2/frm`, `/tuio2/ptr`
/// and `/tuio2/alv`. Other TUIO profiles (objects, blobs, 2.5D and 3D, 2.0 tokens and
/// geometry) are skipped and counted; they carry no fingers.
public struct TUIOFrameMessage: Sendable, Equatable {
  public enum Version: Sendable, Equatable { case tuio11, tuio20 }

  /// A cursor's normalized position (0…1, origin top-left) as the bundle sets it, and what a
  /// TUIO 2.0 pointer says of its contact.
  public struct Position: Sendable, Equatable {
    public var id: Int64
    public var x: Double
    public var y: Double
    /// TUIO 2.0 `press` (0…1), nil when it is 0 or less: none measured.
    public var pressure: Double? = nil
    /// TUIO 2.0 `radius`, normalized as the positions are; nil when 0.
    public var radius: Double? = nil
  }

  public var version: Version
  /// TUIO 1.1's `source` or TUIO 2.0's `frm` source string, if the bundle names one.
  public var source: String?
  /// `fseq` (1.1) or `frm`'s frame id (2.0); nil when the bundle has none.
  public var frameID: Int64?
  /// The session ids alive after this bundle; nil when the bundle has no `alive` (`alv`).
  public var alive: [Int64]?
  public var positions: [Position] = []
  /// TUIO 2.0 `frm`'s sensor dimensions (width, height), when not zero.
  public var dimension: (width: Int, height: Int)?
  /// Messages of other profiles the bundle carried.
  public var skipped = 0

  public static func == (a: TUIOFrameMessage, b: TUIOFrameMessage) -> Bool {
    a.version == b.version && a.source == b.source && a.frameID == b.frameID && a.alive == b.alive
      && a.positions == b.positions && a.dimension?.width == b.dimension?.width
      && a.dimension?.height == b.dimension?.height && a.skipped == b.skipped
  }

  /// Why a packet is not a TUIO cursor bundle.
  public enum Refusal: String, Error, Sendable, CaseIterable {
    /// A TUIO message with arguments of the wrong number or type, or a position out of range.
    case badArguments = "bad_arguments"
    /// No message of any TUIO profile at all.
    case unknownAddress = "unknown_address"
    /// Both TUIO 1.1 and 2.0 cursor messages in one bundle.
    case mixedVersions = "mixed_versions"
  }

  /// Positions outside the surface by more than this are refused (a sender's rounding may go
  /// slightly past 0 or 1; far beyond is garbage).
  static let positionSlack = 1.0

  public static func read(_ packet: OSCPacket) -> Result<TUIOFrameMessage, Refusal> {
    var version: Version?
    var m = TUIOFrameMessage(version: .tuio11)
    var sawTUIO = false
    for message in packet.messages {
      let address = message.address
      let a = message.arguments
      if address == "/tuio/2Dcur" {
        guard version != .tuio20 else { return .failure(.mixedVersions) }
        version = .tuio11
        sawTUIO = true
        guard case .string(let command)? = a.first else { return .failure(.badArguments) }
        switch command {
        case "source":
          guard a.count == 2, case .string(let s) = a[1] else { return .failure(.badArguments) }
          m.source = s
        case "alive":
          var ids: [Int64] = []
          ids.reserveCapacity(a.count - 1)
          for arg in a.dropFirst() {
            guard let id = arg.integer, id >= 0 else { return .failure(.badArguments) }
            ids.append(id)
          }
          m.alive = ids
        case "set":
          // s_id x y X Y m (TUIO 1.1 2Dcur); the velocities and acceleration are derived again
          // by the engine from the positions and times.
          guard a.count == 7, let id = a[1].integer, id >= 0, let x = a[2].number, let y = a[3].number,
            a[4].number != nil, a[5].number != nil, a[6].number != nil, inRange(x), inRange(y)
          else { return .failure(.badArguments) }
          m.positions.append(Position(id: id, x: x, y: y))
        case "fseq":
          guard a.count == 2, let f = a[1].integer else { return .failure(.badArguments) }
          m.frameID = f
        default:
          return .failure(.badArguments)
        }
      } else if address.hasPrefix("/tuio2/") {
        sawTUIO = true
        switch address {
        case "/tuio2/frm":
          guard version != .tuio11 else { return .failure(.mixedVersions) }
          version = .tuio20
          // f_id time [dim source]: the frame id and session ids of TUIO 2.0 are unsigned 32-bit
          // numbers sent as `i`.
          guard a.count >= 2, case .int32(let f) = a[0], case .timeTag = a[1] else { return .failure(.badArguments) }
          m.frameID = Int64(UInt32(bitPattern: f))
          if a.count >= 3 {
            guard case .int32(let dim) = a[2] else { return .failure(.badArguments) }
            let bits = UInt32(bitPattern: dim)
            let w = Int(bits >> 16)
            let h = Int(bits & 0xFFFF)
            if w > 0 && h > 0 { m.dimension = (w, h) }
          }
          if a.count >= 4 {
            guard a.count == 4, case .string(let s) = a[3] else { return .failure(.badArguments) }
            m.source = s
          }
        case "/tuio2/ptr":
          guard version != .tuio11 else { return .failure(.mixedVersions) }
          version = .tuio20
          // s_id tu_id c_id x y angle shear radius press [x_vel y_vel p_vel m_acc p_acc]
          guard a.count == 9 || a.count == 14, let id = a[0].integer, a[1].integer != nil,
            a[2].integer != nil, let x = a[3].number, let y = a[4].number, inRange(x), inRange(y),
            a[5...].allSatisfy({ $0.number != nil })
          else { return .failure(.badArguments) }
          // radius and press (TUIO 2.0): 0 is what senders without them send (its examples
          // say "no pressure data" of a press of 0); a press beyond 1 or a negative radius is
          // no reading at all.
          guard let radius = a[7].number, let press = a[8].number, radius >= 0, press <= 1 else {
            return .failure(.badArguments)
          }
          m.positions.append(
            Position(
              id: Int64(UInt32(truncatingIfNeeded: id)), x: x, y: y, pressure: press > 0 ? press : nil,
              radius: radius > 0 ? radius : nil))
        case "/tuio2/alv":
          guard version != .tuio11 else { return .failure(.mixedVersions) }
          version = .tuio20
          var ids: [Int64] = []
          ids.reserveCapacity(a.count)
          for arg in a {
            guard let id = arg.integer else { return .failure(.badArguments) }
            ids.append(Int64(UInt32(truncatingIfNeeded: id)))
          }
          m.alive = ids
        default:
          m.skipped += 1
        }
      } else if address.hasPrefix("/tuio/") {
        sawTUIO = true
        m.skipped += 1
      } else {
        m.skipped += 1
      }
    }
    guard sawTUIO else { return .failure(.unknownAddress) }
    m.version = version ?? .tuio11
    return .success(m)
  }

  private static func inRange(_ v: Double) -> Bool {
    v >= -positionSlack && v <= 1 + positionSlack
  }
}
