import ConformanceSupport
import Testing

@testable import RelayCore

@Suite struct DeadlineQueueTests {
  final class Item: DeadlineQueueItem {
    let id: Int
    var deadlineIndex: Int?
    init(_ id: Int) { self.id = id }
  }

  @Test func popsDueItemsEarliestFirstAndLeavesTheRest() {
    var q = DeadlineQueue<Item>()
    let items = (0..<5).map(Item.init)
    for (item, due) in zip(items, [30.0, 10, 50, 20, 40]) { q.set(item, due: due) }
    #expect(q.earliest == 10)
    var popped: [Int] = []
    while let item = q.popDue(35) { popped.append(item.id) }
    #expect(popped == [1, 3, 0])
    #expect(q.count == 2)
    #expect(q.earliest == 40)
    #expect(items[1].deadlineIndex == nil)
  }

  @Test func aMovedOrRemovedItemKeepsOnePlace() {
    var q = DeadlineQueue<Item>()
    let a = Item(1)
    let b = Item(2)
    q.set(a, due: 10)
    q.set(b, due: 20)
    q.set(a, due: 30)
    #expect(q.count == 2)
    #expect(q.earliest == 20)
    q.remove(b)
    q.remove(b)
    #expect(q.count == 1)
    #expect(q.popDue(29) == nil)
    #expect(q.popDue(30) === a)
    #expect(q.isEmpty)
  }

  /// Random sets, moves, removes and pops against a plain dictionary of due times.
  @Test func agreesWithAPlainModel() {
    var rng = SeededLCG(state: 0x5EED)
    var q = DeadlineQueue<Item>()
    let items = (0..<40).map(Item.init)
    var model: [Int: Double] = [:]
    var clock = 0.0
    for _ in 0..<5_000 {
      let item = items[rng.below(40)]
      switch rng.below(4) {
      case 0, 1:
        let due = clock + Double(rng.below(500))
        q.set(item, due: due)
        model[item.id] = due
      case 2:
        q.remove(item)
        model[item.id] = nil
      default:
        clock += Double(rng.below(50))
        var popped: [Double] = []
        while let p = q.popDue(clock) {
          popped.append(model[p.id]!)
          model[p.id] = nil
        }
        #expect(popped == popped.sorted())
        #expect(popped.allSatisfy { $0 <= clock })
      }
      #expect(q.count == model.count)
      #expect(q.earliest == model.values.min())
      #expect(items.allSatisfy { ($0.deadlineIndex != nil) == (model[$0.id] != nil) })
    }
  }
}
