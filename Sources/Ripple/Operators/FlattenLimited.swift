/// RAC's `flatten:` with a maximum, and what is built on it: `concat` of a
/// signal of signals (a maximum of 1) and Rx's `concatMap` (flattenMap with a
/// maximum of 1). It is `BindSignal` with a limit: the bind's source sink
/// calls the transform when a value arrives (so a concat_map callback runs
/// at once, not when its inner starts) and hands the signal to the limiter
/// here, which starts at most `limit` inners at once and queues the others
/// in arrival order (FIFO). When a running inner completes, the next waiting
/// one starts. Completion, errors and disposal are the bind's: complete once
/// the source and every inner (running or waiting) have completed; the first
/// error ends everything and waiting inners are never subscribed; disposal
/// disposes the source and the running inners.
///
/// No recursion: inners that complete synchronously while being subscribed
/// free their slot and return; the loop that subscribed them starts the next
/// one. So a long queue of synchronous inners runs in constant stack.
final class InnerLimiter {
    let limit: Int
    private let lock = Lock()
    /// Inners subscribed and not yet completed (under `lock`).
    @exclusivity(unchecked) private var running = 0
    /// Inners waiting for a slot (under `lock`).
    @exclusivity(unchecked) private var waiting = Fifo<Signal>()

    init(_ limit: Int) { self.limit = limit }

    /// Queues `signal` (already counted in `state.active`) behind the ones
    /// waiting, then starts what the limit allows.
    func enqueue(_ signal: Signal, _ state: BindState) {
        lock.lock()
        waiting.append(signal)
        lock.unlock()
        startWaiting(state)
    }

    /// A running inner completed: its slot is free. The next one starts
    /// from here if the call that subscribed `inner` has returned; if not,
    /// the loop that made that call starts it when the call returns. Both
    /// sides decide under the lock, so exactly one of them goes on.
    func innerEnded(_ inner: BindInnerSink, _ state: BindState) {
        lock.lock()
        running -= 1
        let startNext = inner.subscribeReturned
        lock.unlock()
        if startNext { startWaiting(state) }
    }

    /// Starts waiting inners, oldest first, while slots are free. Several
    /// threads may run it at once; each start takes its slot under the lock,
    /// so the limit holds.
    private func startWaiting(_ state: BindState) {
        var fastDone = false  // the last inner ended at once; its slot is still taken
        var subscribed: BindInnerSink? = nil  // the last inner this loop subscribed
        while true {
            lock.lock()
            if fastDone { running -= 1 }
            subscribed?.subscribeReturned = true  // (idempotent; released outside the lock)
            if state.relay.isDisposed {
                // Ended (error, dispose, downstream take): drop what waits,
                // outside the lock (a signal's last release may run a
                // callback's release).
                let dropped = waiting.takeAll()
                lock.unlock()
                _ = consume dropped
                return
            }
            guard running < limit, let next = waiting.popFirst() else {
                lock.unlock()
                return
            }
            // The slot is taken before the inner starts, also for one that
            // ends at once: with a limit of 1, nothing can overtake it.
            running += 1
            lock.unlock()
            fastDone = state.endedAtOnce(next)
            if fastDone {
                state.sideCompleted()
            } else {
                subscribed = state.subscribeInnerSlow(next)
            }
        }
    }
}

extension Value {
    /// The inner signal a value of a limited flatten stands for: the signal,
    /// nil for a nil value (an empty inner), and for any other type nil after
    /// failing the operator through the callback failure channel (the error
    /// comes at once, not when the value's turn would come).
    public func innerSignalOrFail(_ op: String) -> Signal? {
        if let s = signalValue { return s }
        if type != .nil {
            _ = failCurrentCallback(.runtime(.generic, "\(op): the value is not a signal (type \(rawType))"))
        }
        return nil
    }
}

extension Signal {
    /// Merges the inner signals of a signal of signal values, at most
    /// `maxConcurrent` at once (0: no limit); the others wait their turn.
    public func flatten(maxConcurrent: Int) -> Signal {
        BindSignal(self, flatMap: { $0.innerSignalOrFail("flatten") }, limit: maxConcurrent)
    }

    /// The inner signals of a signal of signal values, one after the other.
    public func concat() -> Signal { flatten(maxConcurrent: 1) }

    /// The signals `transform` returns (called as each value arrives), one
    /// after the other (Rx's concatMap).
    public func concatMap(_ transform: @escaping BindSignal.Transform) -> Signal {
        BindSignal(self, flatMap: transform, limit: 1)
    }
}
