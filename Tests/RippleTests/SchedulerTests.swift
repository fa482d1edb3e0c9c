import Glibc
import Ripple
import XCTest

/// Records values (as ints) and terminal events; thread-safe.
private final class Recorder: @unchecked Sendable {
    let lock = Lock()
    var values: [Int64] = []
    var completed = 0
    var errors: [RippleError] = []
    var finished = 0
    var sink: ClosureSink {
        ClosureSink(next: { v in self.lock.withLock { self.values.append(v.intValue) } },
                    error: { e in self.lock.withLock { self.errors.append(e) } },
                    completed: { self.lock.withLock { self.completed += 1 } },
                    finished: { self.lock.withLock { self.finished += 1 } })
    }
    var snapshot: [Int64] { lock.withLock { values } }
}

/// A source the test sends into by hand.
private final class Source {
    var subscriber: Subscriber?
    lazy var signal: Signal = CreateSignal { [unowned self] s in
        self.subscriber = s
        return nil
    }
    func send(_ i: Int64) { subscriber?.sendNext(.int(i)) }
    func complete() { subscriber?.sendCompleted() }
}

final class SchedulerTests: XCTestCase {
    func testImmediateTrampolineAndCurrent() {
        var order: [Int] = []
        var current: [Scheduler?] = []
        let imm = ImmediateScheduler.shared
        imm.schedule {
            order.append(1)
            current.append(Scheduler.current)
            imm.schedule { order.append(3) }
            order.append(2)
        }
        XCTAssertEqual(order, [1, 2, 3])
        XCTAssertTrue(current[0] === imm)
        XCTAssertNil(Scheduler.current)
    }

    func testImmediateDeepRecursion() {
        var depth = 0
        func step() {
            depth += 1
            if depth < 100_000 { ImmediateScheduler.shared.schedule(step) }
        }
        ImmediateScheduler.shared.schedule(step)
        XCTAssertEqual(depth, 100_000)
    }

    func testTestSchedulerVirtualTimeFIFO() {
        let ts = TestScheduler()
        var log: [(Int, UInt64)] = []
        ts.schedule(after: 10) { log.append((1, ts.now)) }
        ts.schedule(after: 5) { log.append((2, ts.now)) }
        ts.schedule(after: 10) { log.append((3, ts.now)) }
        let cancelled = ts.schedule(after: 7) { log.append((4, ts.now)) }
        cancelled.dispose()
        ts.advance(by: 9)
        XCTAssertEqual(log.map(\.0), [2])
        XCTAssertEqual(ts.now, 9)
        ts.runAll()
        XCTAssertEqual(log.map(\.0), [2, 1, 3])
        XCTAssertEqual(log.map(\.1), [5, 10, 10])
    }

    func testRepeatingAndDispose() {
        let ts = TestScheduler()
        var ticks: [UInt64] = []
        let d = ts.schedule(after: 3, repeating: 4) { ticks.append(ts.now) }
        ts.advance(by: 12)
        XCTAssertEqual(ticks, [3, 7, 11])
        d.dispose()
        ts.advance(by: 100)
        XCTAssertEqual(ticks.count, 3)
    }

    func testSerialSchedulerRunsInOrderOnItsThread() {
        let s = SerialScheduler(label: "swift.serial")
        let done = Lock()
        var order: [Int] = []
        var finished = false
        var sawCurrent = true
        for i in 0..<50 {
            s.schedule {
                order.append(i)
                if Scheduler.current !== s { sawCurrent = false }
                if i == 49 { done.withLock { finished = true; done.broadcast() } }
            }
        }
        done.withLock { while !finished { done.wait() } }
        XCTAssertEqual(order, Array(0..<50))
        XCTAssertTrue(sawCurrent)
    }

    func testDelayThrottleTimeoutInterval() {
        let ts = TestScheduler()
        // delay
        let src = Source()
        let r = Recorder()
        let d = src.signal.delay(10, on: ts).subscribe(r.sink)
        src.send(1)
        ts.advance(by: 9)
        XCTAssertEqual(r.snapshot, [])
        ts.advance(by: 1)
        XCTAssertEqual(r.snapshot, [1])
        d.dispose()

        // throttle
        let src2 = Source()
        let r2 = Recorder()
        _ = src2.signal.throttle(10, on: ts).subscribe(r2.sink)
        src2.send(1)
        ts.advance(by: 5)
        src2.send(2)
        ts.advance(by: 10)
        XCTAssertEqual(r2.snapshot, [2])
        src2.send(3)
        src2.complete()
        XCTAssertEqual(r2.snapshot, [2, 3])
        XCTAssertEqual(r2.completed, 1)

        // timeout
        let r3 = Recorder()
        let t = Signal.interval(100, on: ts).timeout(10, on: ts).subscribe(r3.sink)
        ts.advance(by: 10)
        XCTAssertEqual(r3.errors.first?.code, RippleError.Code.timeout.rawValue)
        XCTAssertEqual(r3.errors.first?.domain, "ripple")
        XCTAssertEqual(r3.finished, 1)
        t.dispose()

        // interval
        let r4 = Recorder()
        let i = Signal.interval(5, on: ts).subscribe(r4.sink)
        ts.advance(by: 16)
        XCTAssertEqual(r4.snapshot, [0, 1, 2])
        i.dispose()
        ts.advance(by: 100)
        XCTAssertEqual(r4.snapshot, [0, 1, 2])
    }

    func testSubscribeOnAndDeliverOn() {
        let ts = TestScheduler()
        let src = Source()
        let r = Recorder()
        let sub = src.signal.subscribe(on: ts).deliver(on: ts).subscribe(r.sink)
        XCTAssertNil(src.subscriber)
        ts.advance(by: 0)
        XCTAssertNotNil(src.subscriber)
        src.send(1)
        src.send(2)
        XCTAssertEqual(r.snapshot, [])
        ts.advance(by: 0)
        XCTAssertEqual(r.snapshot, [1, 2])
        sub.dispose()
        XCTAssertEqual(r.finished, 1)
    }

    func testRunLoopDescriptor() throws {
        let loop = try XCTUnwrap(RunLoopScheduler.make())
        var ran = 0
        loop.schedule { ran += 1 }
        var p = pollfd(fd: loop.fd, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&p, 1, 0), 1)
        XCTAssertEqual(try loop.runUntilIdle(), 1)
        XCTAssertEqual(ran, 1)
        XCTAssertEqual(poll(&p, 1, 0), 0)
    }
}
