import Testing
import TouchProtocol

@testable import RelayCore

@Suite struct RequestTargetTests {
  @Test func parsesRolesAndFilters() {
    #expect(RequestTarget.parse(path: "/v1/source/demo", args: []) == .success(.source(session: "demo")))
    let target = RequestTarget.parse(
      path: "/v1/observe/demo", args: [("raw", "1"), ("source", "s2"), ("gestures", "tap,pinch")])
    guard case .success(.observer(let session, let filter)) = target else {
      Issue.record("not an observer: \(target)")
      return
    }
    #expect(session == "demo")
    #expect(filter.raw)
    #expect(filter.source == "s2")
    #expect(filter.gestures == [.tap, .pinch])
    #expect(filter.wants(.tap) && !filter.wants(.pan))
    #expect(filter.wants(source: "s2") && !filter.wants(source: "s1"))
  }

  /// `gestures=` with nothing after it is documented (protocol/README.md, asyncapi.yaml) as
  /// asking for no gestures at all: raw touches only, if `raw=1`.
  @Test func anEmptyGestureListAsksForNone() {
    guard case .success(.observer(_, let filter)) = RequestTarget.parse(
      path: "/v1/observe/demo", args: [("gestures", "")])
    else {
      Issue.record("gestures= was refused")
      return
    }
    #expect(GestureKind.allCases.allSatisfy { !filter.wants($0) })
  }

  /// An empty item between commas (a client joining a list with a trailing comma) is ignored,
  /// as protocol/README.md and the pattern in asyncapi.yaml say: not refused, not "all".
  @Test func emptyItemsInTheGestureListAreIgnored() {
    for value in ["tap,,pinch", ",tap,pinch,"] {
      guard case .success(.observer(_, let filter)) = RequestTarget.parse(
        path: "/v1/observe/demo", args: [("gestures", value)])
      else {
        Issue.record("gestures=\(value) was refused")
        continue
      }
      #expect(filter.gestures == [.tap, .pinch], "gestures=\(value)")
    }
  }

  @Test func refusesWhatItDoesNotKnow() {
    #expect(
      RequestTarget.parse(path: "/v1/source/a b", args: [])
        == .failure(.badRequest("session names match [A-Za-z0-9_-]{1,64}")))
    #expect(RequestTarget.parse(path: "/v1/source/", args: []).isFailure)
    #expect(RequestTarget.parse(path: "/v1/source/a/b", args: []) == .failure(.notFound))
    #expect(RequestTarget.parse(path: "/v1/spy/a", args: []) == .failure(.notFound))
    #expect(RequestTarget.parse(path: "/v1/observe/a", args: [("gestures", "tap,wave")]).isFailure)
    #expect(!RequestTarget.parse(path: "/v1/observe/a", args: [("token", "x")]).isFailure)
  }
}

extension Result {
  var isFailure: Bool {
    if case .failure = self { return true }
    return false
  }
}
