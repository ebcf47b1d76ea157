/// An RSA public key's modulus and exponent, read from its DER: a SubjectPublicKeyInfo
/// (`BEGIN PUBLIC KEY`) or a PKCS#1 RSAPublicKey (`BEGIN RSA PUBLIC KEY`). Read here rather than
/// by `_RSA.Signing.PublicKey(derRepresentation:)`: in swift-crypto 3.12 that initializer frees
/// its key twice when BoringSSL cannot parse the DER (found by fuzz-jose), so any public key
/// that is not RSA would crash the server at start-up or on SIGHUP. `init(n:e:)` has no such path.
enum RSAPublicKeyDER {
  /// rsaEncryption, 1.2.840.113549.1.1.1.
  static let rsaEncryption: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]

  /// From a SubjectPublicKeyInfo; nil if it is not an RSA key's, or not strict DER.
  static func components(subjectPublicKeyInfo der: [UInt8]) -> (n: [UInt8], e: [UInt8])? {
    var outer = Reader(der[...])
    guard var spki = outer.read(tag: 0x30).map(Reader.init), outer.isAtEnd,
      var algorithm = spki.read(tag: 0x30).map(Reader.init),
      let oid = algorithm.read(tag: 0x06), Array(oid) == rsaEncryption,
      let bits = spki.read(tag: 0x03), spki.isAtEnd, bits.first == 0
    else { return nil }
    // The parameters are NULL, or absent.
    if !algorithm.isAtEnd {
      guard let null = algorithm.read(tag: 0x05), null.isEmpty, algorithm.isAtEnd else { return nil }
    }
    return components(pkcs1: Array(bits.dropFirst()))
  }

  /// From a PKCS#1 RSAPublicKey: SEQUENCE { INTEGER n, INTEGER e }.
  static func components(pkcs1 der: [UInt8]) -> (n: [UInt8], e: [UInt8])? {
    var outer = Reader(der[...])
    guard var key = outer.read(tag: 0x30).map(Reader.init), outer.isAtEnd,
      let n = key.read(tag: 0x02), let e = key.read(tag: 0x02), key.isAtEnd
    else { return nil }
    // Positive integers: a leading zero only keeps the top bit from reading as a sign.
    func magnitude(_ i: ArraySlice<UInt8>) -> [UInt8]? {
      guard let first = i.first, first & 0x80 == 0 else { return nil }
      let m = Array(i.drop { $0 == 0 })
      return m.isEmpty ? nil : m
    }
    guard let nm = magnitude(n), let em = magnitude(e) else { return nil }
    return (nm, em)
  }

  /// DER type-length-value elements, one after another.
  struct Reader {
    var rest: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { rest = bytes }

    var isAtEnd: Bool { rest.isEmpty }

    /// The contents of the next element if it has `tag`; nil (and nothing read) otherwise.
    mutating func read(tag: UInt8) -> ArraySlice<UInt8>? {
      var r = rest
      guard r.popFirst() == tag, let first = r.popFirst() else { return nil }
      var length = 0
      if first < 0x80 {
        length = Int(first)
      } else {
        // Long form: 1 to 4 length bytes, no leading zero, and not usable in short form.
        let count = Int(first & 0x7F)
        guard (1...4).contains(count), r.count >= count, r.first != 0 else { return nil }
        for _ in 0..<count { length = length << 8 | Int(r.popFirst()!) }
        guard length >= 0x80 else { return nil }
      }
      guard r.count >= length else { return nil }
      let contents = r.prefix(length)
      rest = r.dropFirst(length)
      return contents
    }
  }
}
