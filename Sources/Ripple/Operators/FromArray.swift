// from_array and range: cold signals that send a fixed run of values
// synchronously to each subscriber, then complete. Each checks between
// values whether the subscription has ended (a downstream take, a dispose
// from a callback), so a long run stops at once (rule 3a).

/// Sends each of `values` (each subscriber gets its own references), then
/// completes.
public final class FromArraySignal: Signal {
    let values: [Value]

    /// Consumes `values`.
    public init(_ values: [Value]) {
        self.values = values
        super.init()
    }

    deinit { for v in values { v.release() } }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        let s = Subscriber.make(sink, sender: false)
        for v in values {
            if s.isDisposed { return s }
            s.sendNext(v.retained())
        }
        s.sendCompleted()
        return s
    }
}

/// Sends the ints `start`, `start + 1`, ..., `count` of them, then
/// completes. The last one must fit: `start + count - 1 <= Int64.max`.
public final class RangeSignal: Signal {
    let start: Int64
    let count: UInt64

    public init(start: Int64, count: UInt64) {
        self.start = start
        self.count = count
        super.init()
    }

    /// Whether `count` ints from `start` fit in Int64.
    public static func fits(start: Int64, count: UInt64) -> Bool {
        // Int64.max - start is in 0...UInt64.max, so the wrapping difference
        // of the bit patterns is exact.
        count == 0 || count - 1 <= UInt64(bitPattern: Int64.max) &- UInt64(bitPattern: start)
    }

    public override func subscribe(_ sink: consuming Sink) -> Subscriber {
        let s = Subscriber.make(sink, sender: false)
        var i: UInt64 = 0
        while i < count {
            if s.isDisposed { return s }
            s.sendNext(.int(start &+ Int64(bitPattern: i)))
            i &+= 1
        }
        s.sendCompleted()
        return s
    }
}

extension Signal {
    /// Sends `values` (consumed), then completes.
    public static func from(_ values: [Value]) -> Signal { FromArraySignal(values) }

    /// `count` consecutive ints from `start` (which must fit, see
    /// `RangeSignal.fits`).
    public static func range(_ start: Int64, count: UInt64) -> Signal { RangeSignal(start: start, count: count) }
}
