import Ripple
import Testing

@Suite struct DisposableTests {
    @Test func actionRunsOnce() {
        var n = 0
        let d = ActionDisposable { n += 1 }
        #expect(!d.isDisposed)
        d.dispose()
        d.dispose()
        #expect(d.isDisposed)
        #expect(n == 1)
    }

    @Test func compound() {
        let c = CompoundDisposable()
        let a = ActionDisposable(), b = ActionDisposable()
        c.add(a)
        c.add(b)
        c.remove(b)
        c.dispose()
        #expect(a.isDisposed)
        #expect(!b.isDisposed)  // removed, not disposed
        let late = ActionDisposable()
        c.add(late)  // disposed at once
        #expect(late.isDisposed)
    }

    @Test func serial() {
        let s = SerialDisposable()
        let a = ActionDisposable(), b = ActionDisposable()
        #expect(s.swap(a) == nil)
        #expect(s.swap(b) === a)
        #expect(!a.isDisposed)  // RAC: swapping does not dispose
        s.dispose()
        #expect(b.isDisposed)
        let c = ActionDisposable()
        #expect(s.swap(c) == nil)
        #expect(c.isDisposed)
    }
}
