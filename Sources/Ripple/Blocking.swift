// Waiting for a signal on the calling thread, for programs without a loop.

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
    /// The subscription, under `lock`; cleared by `finish` (it owns this
    /// sink: the cycle lasts until the subscription ends).
    @exclusivity(unchecked) var subscription: Subscriber?

    init(stopAfterFirst: Bool) { self.stopAfterFirst = stopAfterFirst }

    override func attach(_ subscriber: Subscriber) { lock.withLock { subscription = subscriber } }
    override func finish() { lock.withLock { subscription = nil } }

    /// Ends the subscription (if it has not ended yet).
    func end() { lock.withLock { subscription }?.dispose() }

    /// The deadline passed (on a timer thread): wakes the waiter and ends
    /// the subscription, so a source still sending stops.
    func expire() {
        lock.withLock {
            if !ended { expired = true }
            lock.broadcast()
        }
        end()
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
        var timer: Disposable?
        if limit != .max {
            timer = BackgroundScheduler.shared.schedule(after: timeout) { [weak sink] in sink?.expire() }
        }
        let subscription = subscribe(sink)
        let ended = sink.wait(until: limit)
        timer?.dispose()
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
