import Ripple
import Testing

/// Counts how often a PointerBox destructor ran, by pointer.
nonisolated(unsafe) var destructorRuns = 0
let countDestructor: RawCallback = { _ in destructorRuns += 1 }

@Suite(.serialized) struct ValueTests {
    @Test func scalars() {
        #expect(Value.nil.type == .nil)
        #expect(Value.bool(true).boolValue)
        #expect(Value.int(-3).intValue == -3)
        #expect(Value.double(1.5).doubleValue == 1.5)
        // No conversion between types (rule 21).
        #expect(Value.double(1.5).intValue == 0)
        #expect(Value.int(1).doubleValue == 0)
        #expect(!Value.int(1).boolValue)
        #expect(!Value.int(1).isBoxed)
        #expect(MemoryLayout<Value>.size == 16)
    }

    @Test func equality() {
        #expect(Value.equal(.int(4), .int(4)))
        #expect(!Value.equal(.int(1), .double(1)))
        #expect(!Value.equal(.double(.nan), .double(.nan)))
        let a = Value.string("abc"), b = Value.string("abc"), c = Value.string("abd")
        defer { a.release(); b.release(); c.release() }
        #expect(Value.equal(a, b))
        #expect(!Value.equal(a, c))
        #expect(a.stringValue == "abc")
    }

    @Test func bytesKeepEmbeddedNul() {
        let v = [UInt8]([0x61, 0, 0x62]).withUnsafeBytes { Value.string(bytes: $0) }
        defer { v.release() }
        #expect(v.bytesBox?.count == 3)
        #expect(v.bytesBox?.base[3] == 0)
        let bytes = [UInt8]([1, 2]).withUnsafeBytes { Value.bytes($0) }
        defer { bytes.release() }
        #expect(bytes.type == .bytes)
        #expect(bytes.stringValue == nil)
    }

    @Test func pointerDestructorRunsOnceWithLastReference() {
        destructorRuns = 0
        let v = Value.pointer(nil, destructor: countDestructor)
        let copy = v.retained()
        v.release()
        #expect(destructorRuns == 0)
        copy.release()
        #expect(destructorRuns == 1)
    }

    @Test func tuplesOwnTheirItems() {
        destructorRuns = 0
        let t = Value.tuple([.int(1), .pointer(nil, destructor: countDestructor)])
        #expect(t.tupleItems?.count == 2)
        let t2 = Value.tuple([.int(1), t.tupleItems![1].retained()])
        #expect(Value.equal(t, t2))
        t.release()
        #expect(destructorRuns == 0)
        t2.release()
        #expect(destructorRuns == 1)
    }

    @Test func eventsAndSignals() {
        let e = Value.event(.next(.int(7)))
        defer { e.release() }
        if case .next(let v)? = e.eventValue { #expect(v.intValue == 7) } else { Issue.record("not a next event") }
        let s = Value.signal(EmptySignal())
        defer { s.release() }
        #expect(s.signalValue != nil)
        #expect(Value.equal(s, s))
    }
}
