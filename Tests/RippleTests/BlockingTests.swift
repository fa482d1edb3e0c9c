import Ripple
import Testing

@Suite struct BlockingTests {
    @Test func first() {
        switch ReturnSignal(.int(4)).first(timeout: .max) {
        case .success(let v): #expect(v.intValue == 4)
        case .failure(let f): Issue.record("unexpected \(f)")
        }
        if case .failure(.noValue) = EmptySignal().first(timeout: .max) {} else { Issue.record("expected noValue") }
        if case .failure(.timedOut) = NeverSignal().first(timeout: 1_000_000) {} else { Issue.record("expected timedOut") }
        if case .failure(.failed(let e)) = ErrorSignal(.runtime(.callback, "x")).first(timeout: .max) {
            #expect(e.code == RippleError.Code.callback.rawValue)
        } else { Issue.record("expected failed") }
    }

    @Test func waitAndCollect() {
        let sig = CreateSignal { s in
            for i in 1...3 { s.sendNext(.int(Int64(i))) }
            s.sendCompleted()
            return nil
        }
        if case .failure = sig.wait(timeout: .max) { Issue.record("wait failed") }
        switch sig.collect(timeout: .max) {
        case .success(let values):
            #expect(values.map(\.intValue) == [1, 2, 3])
            for v in values { v.release() }
        case .failure(let f): Issue.record("unexpected \(f)")
        }
        if case .failure(.timedOut) = NeverSignal().wait(timeout: 1_000_000) {} else { Issue.record("expected timedOut") }
        if case .failure(.timedOut) = NeverSignal().collect(timeout: 1_000_000) {} else { Issue.record("expected timedOut") }
    }
}
