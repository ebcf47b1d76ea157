extension ServerMessage {
  /// A `shape` as a `gesture` message: the members every gesture has (`x`, `y` the box's
  /// centre, `touches` 1, state `recognized`), then `name`, `score` and `bounds`.
  public static func write(_ s: ShapeEvent, origin: Origin, _ w: inout JSONWriter) {
    w.beginObject()
    w.key("type")
    w.string(literal: "gesture")
    write(origin, &w)
    w.key("id")
    w.int(Int64(s.id))
    w.key("gesture")
    w.string(literal: "shape")
    w.key("state")
    w.string(literal: "recognized")
    w.key("touches")
    w.int(1)
    w.key("x")
    w.number(s.x)
    w.key("y")
    w.number(s.y)
    w.key("regions")
    w.beginArray()
    for r in s.regions { w.string(r) }
    w.endArray()
    w.key("name")
    w.string(s.name)
    w.key("score")
    w.number(s.score)
    w.key("bounds")
    w.beginObject()
    w.key("x")
    w.number(s.left)
    w.key("y")
    w.number(s.top)
    w.key("width")
    w.number(s.width)
    w.key("height")
    w.number(s.height)
    w.endObject()
    w.endObject()
  }

  public static func shape(_ s: ShapeEvent, origin: Origin, headroom: Int = 0) -> [UInt8] {
    var w = JSONWriter(headroom: headroom, capacity: 256 + s.name.utf8.count * 6)
    write(s, origin: origin, &w)
    return w.bytes
  }
}
