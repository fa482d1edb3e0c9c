// Swift spellings of the combining and higher-order operators.

extension Signal {
    /// RAC's bind (see `BindSignal`): nil or `stop` ends the source side.
    public func bind(_ binder: @escaping BindSignal.Binder) -> Signal { BindSignal(self, binder) }

    /// Subscribes the signal `transform` returns for each value (nil: empty)
    /// and merges their values.
    public func flatMap(_ transform: @escaping BindSignal.Transform) -> Signal { BindSignal(self, flatMap: transform) }

    /// Merges the inner signals of a signal of signal values.
    public func flatten() -> Signal { BindSignal(self, flatMap: { $0.innerSignal("flatten") }) }

    /// Follows only the latest inner signal of a signal of signal values.
    public func switchToLatest() -> Signal { SwitchToLatestSignal(self) }

    /// This signal's events, then `other`'s.
    public func concat(_ other: Signal) -> Signal { ConcatSignal(self, other) }

    /// `value` first (consumed), then this signal's events.
    public func startWith(_ value: Value) -> Signal { StartWithSignal(self, value) }

    /// Ignores this signal's values; on completion, `next`'s events.
    public func then(_ next: Signal) -> Signal { ConcatSignal(self, next, ignoreFirstValues: true) }

    /// This signal's events until `trigger` sends a value or completes.
    public func takeUntil(_ trigger: Signal) -> Signal { TakeUntilSignal(self, trigger: trigger) }

    /// On error, continues with the signal `handler` returns (nil: the error passes on).
    public func `catch`(_ handler: @escaping CatchSignal.Handler) -> Signal { CatchSignal(self, handler) }

    /// On error, continues with `replacement`.
    public func catchTo(_ replacement: Signal) -> Signal { CatchSignal(self) { _ in replacement } }

    /// Resubscribes on error, at most `count` times (`UInt.max`: without limit).
    public func retry(_ count: UInt = .max) -> Signal { RepeatSignal(self, .retry, limit: count) }

    /// Subscribes `count` times in all, one after another (`UInt.max`: forever).
    public func `repeat`(_ count: UInt = .max) -> Signal { RepeatSignal(self, .repeat, limit: count) }

    public static func merge(_ signals: [Signal]) -> Signal { MergeSignal(signals) }
    public static func zip(_ signals: [Signal]) -> Signal { ZipSignal(signals) }
    public static func combineLatest(_ signals: [Signal]) -> Signal { CombineLatestSignal(signals) }
}
