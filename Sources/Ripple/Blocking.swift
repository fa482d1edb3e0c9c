// Waiting for a signal on the calling thread, for programs without a loop.
import RippleSupport

/// Why a blocking wait ended without the result.
public enum BlockingFailure: Error {
    case timedOut
    case noValue
    case failed(RippleError)
}

/// Collects events for a waiting thread. It holds its own subscription from
/// the start (rule 3a), so the first value (for `first`) or the deadline
/// ends a source that is still inside its subscribe callback on this thread.
final class BlockingSink: Sink, @unchecked Sendable {
    let lock = Lock()
    let stopAfterFirst: Bool
    @exclusivity(unchecked) var values: [Value] = []
    @exclusivity(unchecked) var error: RippleError?
    @exclusivity(unchecked) var ended = false
    @exclusivity(unchecked) var expired = false
    /// The deadline's timer is ending the subscription on its thread now.
    @exclusivity(unchecked) var expiring = false
    /// The waiter is done: a timer firing from now on changes nothing.
    @exclusivity(unchecked) var settled = false
    /// The subscription, under `lock`; cleared by `finish` (it owns this
    /// sink: the cycle lasts until the subscription ends).
    @exclusivity(unchecked) var subscription: Subscriber?

    init(stopAfterFirst: Bool) { self.stopAfterFirst = stopAfterFirst }

    override func attach(_ subscriber: Subscriber) { lock.withLock { subscription = subscriber } }
    override func finish() { lock.withLock { subscription = nil } }

    /// Ends the subscription (if it has not ended yet).
    func end() { lock.withLock { subscription }?.dispose() }

    /// The deadline passed (on a timer thread): wakes the waiter and ends
    /// the subscription, so a source still sending, or still inside its
    /// subscribe callback on the waiting thread, stops. The waiter does not
    /// return before this has finished (`settle`).
    func expire() {
        let go: Bool = lock.withLock {
            if settled { return false }
            if !ended { expired = true }
            expiring = true
            lock.broadcast()
            return true
        }
        guard go else { return }
        end()
        lock.withLock {
            expiring = false
            lock.broadcast()
        }
    }

    /// The waiter is done waiting: waits for a teardown the timer's thread
    /// has started (a second dispose does not wait for the first, and the
    /// helper returns with the subscription over:
    /// docs/behaviour.md#blocking-helpers), and keeps a later timer from
    /// starting one.
    /// A waiter inside a delivery (a callback) does not wait: the timer's
    /// dispose may have to hand its work to this thread's gate, and it
    /// finishes when the callback returns, as a dispose's release does.
    func settle() {
        let delivering = ripple_thread()!.pointee.delivering > 0
        lock.withLock {
            settled = true
            while expiring && !delivering { lock.wait() }
        }
    }

    override func onNext(_ value: borrowing Value) {
        let v = value.retained()
        lock.lock()
        if ended {
            lock.unlock()
            v.release()
            return
        }
        values.append(v)
        if stopAfterFirst { ended = true; lock.broadcast() }
        lock.unlock()
        if stopAfterFirst { end() }  // from inside the callback: allowed
    }
    override func onError(_ e: RippleError) {
        lock.withLock {
            if !ended { error = e; ended = true }
            lock.broadcast()
        }
    }
    override func onCompleted() {
        lock.withLock { ended = true; lock.broadcast() }
    }

    /// Waits until ended or the deadline; returns whether it ended.
    func wait(until deadline: UInt64) -> Bool {
        lock.withLock {
            while !ended && !expired {
                if !lock.wait(until: deadline) { return ended }
            }
            return ended
        }
    }

    func takeValues() -> [Value] {
        lock.withLock { let v = values; values = []; return v }
    }

    deinit { for v in values { v.release() } }
}

extension Signal {
    private func block(stopAfterFirst: Bool, timeout: UInt64) -> (BlockingSink, Bool) {
        let limit = deadline(after: timeout)
        let sink = BlockingSink(stopAfterFirst: stopAfterFirst)
        // The timer reaches the subscription through the sink: a source that
        // is still inside `subscribe` on this thread at the deadline is
        // disposed from the timer's thread.
        // A timeout of 0 polls: the result is what the source did inside
        // its subscribe call, which no timer cuts short (one firing at once
        // on another thread would race with that call).
        var timer: Disposable?
        if limit != .max && timeout != 0 {
            timer = BackgroundScheduler.shared.schedule(after: timeout) { [weak sink] in sink?.expire() }
        }
        let subscription = subscribe(sink)
        let ended = sink.wait(until: limit)
        timer?.dispose()
        sink.settle()
        subscription.dispose()
        return (sink, ended)
    }

    /// The first value (+1), waiting at most `timeout` ns (UInt64.max: forever).
    public func first(timeout: UInt64) -> Result<Value, BlockingFailure> {
        let (sink, ended) = block(stopAfterFirst: true, timeout: timeout)
        let values = sink.takeValues()
        if let v = values.first {
            for extra in values.dropFirst() { extra.release() }
            return .success(v)
        }
        if !ended { return .failure(.timedOut) }
        if let e = sink.error { return .failure(.failed(e)) }
        return .failure(.noValue)
    }

    /// Waits until the signal terminates.
    public func wait(timeout: UInt64) -> Result<Void, BlockingFailure> {
        let (sink, ended) = block(stopAfterFirst: false, timeout: timeout)
        for v in sink.takeValues() { v.release() }
        if !ended { return .failure(.timedOut) }
        if let e = sink.error { return .failure(.failed(e)) }
        return .success(())
    }

    /// Every value (each +1), once the signal completes.
    public func collect(timeout: UInt64) -> Result<[Value], BlockingFailure> {
        let (sink, ended) = block(stopAfterFirst: false, timeout: timeout)
        let values = sink.takeValues()
        if !ended || sink.error != nil {
            for v in values { v.release() }
            if let e = sink.error { return .failure(.failed(e)) }
            return .failure(.timedOut)
        }
        return .success(values)
    }
}
