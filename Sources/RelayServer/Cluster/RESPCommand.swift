/// A Redis command in RESP (an array of bulk strings), appended to a send buffer. Writing it
/// is a few lines; hiredis' formatter would build it in a buffer of its own first, and a
/// published batch would then be copied twice.
enum RESPCommand {
  static func append(_ args: [[UInt8]], to out: inout [UInt8]) {
    out.append(UInt8(ascii: "*"))
    out.append(contentsOf: String(args.count).utf8)
    out.append(contentsOf: [13, 10])
    for a in args {
      out.append(UInt8(ascii: "$"))
      out.append(contentsOf: String(a.count).utf8)
      out.append(contentsOf: [13, 10])
      out.append(contentsOf: a)
      out.append(contentsOf: [13, 10])
    }
  }

  static func append(_ args: String..., to out: inout [UInt8]) {
    append(args.map { Array($0.utf8) }, to: &out)
  }
}
