/// One touch sequence: from the first finger down to the last finger up. Taps, swipes and
/// the arena's claims are decided per sequence.
struct TouchSequence: Sendable {
  struct Member: Sendable {
    var id: Int64
    var downX: Double
    var downY: Double
    var downRegions: [String]
    var liftX: Double
    var liftY: Double
  }

  var startT: Double
  /// Every finger that took part, in landing order, with where it began and where it lifted.
  var members: [Member] = []
  /// The fingers' velocity as the last one lifted, points per millisecond (the pan measures it;
  /// a swipe, asked after the pan, reads it).
  var liftVelocity = (x: 0.0, y: 0.0)
  /// A finger was cancelled: nothing new starts and the sequence counts for nothing.
  var cancelled = false
  /// The arena members a claim that went through excluded (`ConflictRule.excludes`): they may
  /// not claim until every finger is up.
  var excluded: RecognizerSet = []

  init(startT: Double) {
    self.startT = startT
  }

  mutating func add(_ f: Finger) {
    members.append(
      Member(
        id: f.id, downX: f.downX, downY: f.downY, downRegions: f.downRegions, liftX: f.x, liftY: f.y
      ))
  }

  /// Remembers where a finger lifted (article 001 keeps the first finger's end location).
  mutating func lift(_ f: Finger) {
    if let i = members.lastIndex(where: { $0.id == f.id }) {
      members[i].liftX = f.x
      members[i].liftY = f.y
    }
  }
}
