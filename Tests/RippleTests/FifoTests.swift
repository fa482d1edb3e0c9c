@testable import Ripple
import XCTest

/// Counts the instances alive, to see that the queue destroys what it holds.
private final class Tracked {
    nonisolated(unsafe) static var alive = 0
    let n: Int
    init(_ n: Int) {
        self.n = n
        Tracked.alive += 1
    }
    deinit { Tracked.alive -= 1 }
}

final class FifoTests: XCTestCase {
    /// Interleaved appends and takes (so the ring wraps, and grows while
    /// wrapped) keep the order an array used as a queue keeps.
    func testOrderAcrossWrapAndGrowth() {
        var fifo = Fifo<Int>()
        var model: [Int] = []
        var next = 0
        var rng = SystemRandomNumberGenerator()
        for round in 0..<2000 {
            let appends = Int.random(in: 0...(round % 7 == 0 ? 40 : 5), using: &rng)
            for _ in 0..<appends {
                fifo.append(next)
                model.append(next)
                next += 1
            }
            let takes = Int.random(in: 0...5, using: &rng)
            for _ in 0..<takes {
                XCTAssertEqual(fifo.first, model.first)
                XCTAssertEqual(fifo.popFirst(), model.isEmpty ? nil : model.removeFirst())
            }
            XCTAssertEqual(fifo.count, model.count)
            XCTAssertEqual(fifo.isEmpty, model.isEmpty)
        }
        while let v = fifo.popFirst() { XCTAssertEqual(v, model.removeFirst()) }
        XCTAssertTrue(model.isEmpty)
        XCTAssertNil(fifo.first)
    }

    /// A queue freed with elements in it (wrapped around) destroys them; one
    /// drained past the kept size frees its buffer and still works.
    func testDestroysWhatItHolds() {
        do {
            var fifo = Fifo<Tracked>()
            for i in 0..<12 { fifo.append(Tracked(i)) }
            for _ in 0..<10 { _ = fifo.popFirst() }
            for i in 12..<30 { fifo.append(Tracked(i)) }  // wraps, then grows
            XCTAssertEqual(Tracked.alive, 20)
            XCTAssertEqual(fifo.first?.n, 10)
        }
        XCTAssertEqual(Tracked.alive, 0)
        var big = Fifo<Tracked>()
        for i in 0..<5000 { big.append(Tracked(i)) }
        while big.popFirst() != nil {}
        XCTAssertEqual(Tracked.alive, 0)
        big.append(Tracked(1))
        XCTAssertEqual(big.popFirst()?.n, 1)
        XCTAssertEqual(Tracked.alive, 0)
    }

    /// takeAll moves everything out, in order, and leaves an empty queue.
    func testTakeAll() {
        var fifo = Fifo<Int>()
        for i in 0..<20 { fifo.append(i) }
        for _ in 0..<5 { _ = fifo.popFirst() }
        var all = fifo.takeAll()
        XCTAssertTrue(fifo.isEmpty)
        XCTAssertEqual(all.count, 15)
        var taken: [Int] = []
        while let v = all.popFirst() { taken.append(v) }
        XCTAssertEqual(taken, Array(5..<20))
        fifo.append(7)
        XCTAssertEqual(fifo.popFirst(), 7)
    }
}
