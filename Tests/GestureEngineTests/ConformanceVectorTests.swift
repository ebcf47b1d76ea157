import ConformanceSupport
import Testing

@Suite struct ConformanceVectorTests {
  static let vectors = ConformanceVector.loadAll()

  @Test func thereAreAtLeastFortyVectors() {
    #expect(Self.vectors.count >= 40)
  }

  @Test(arguments: vectors)
  func vectorMatches(_ v: ConformanceVector) throws {
    #expect(v.json != .null, "\(v.file) is not valid JSON")
    let outcome = try VectorRunner.run(v)
    let problems = VectorRunner.check(v, outcome)
    #expect(problems.isEmpty, "\(v.file): \(problems.joined(separator: "\n"))")
  }

  @Test(arguments: vectors)
  func vectorIsDeterministic(_ v: ConformanceVector) throws {
    let a = try VectorRunner.run(v)
    let b = try VectorRunner.run(v)
    #expect(a.events == b.events && a.errors == b.errors && a.scenes == b.scenes)
  }
}
