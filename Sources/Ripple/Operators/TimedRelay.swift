// The relay of the time operators that keep state between their source and
// a timer (throttle_if, throttle, delay, buffer_with_time). Source values and timer ticks
// both travel through the relay's gate, as inputs of its head (a
// `TimedCore`): the state there is touched one event at a time, without a
// lock, whichever thread the source or the scheduler runs on; what the core
// sends keeps the order in which the events reached the gate; and no lock is
// held while it sends. The relay holds its source subscription before the
// source's subscribe callback runs (RelaySink.attach, rule 3a).

/// A source value for the core to hold back (0), a timer tick carrying its
/// generation (1), or a value to send at once (2, throttle_if).
enum TimedInput {
    static let held = 0
    static let tick = 1
    static let immediate = 2
}

/// The head of a timed relay: at most one timer at a time, armed with
/// `arm()`; a tick from a timer that was replaced or cancelled meanwhile is
/// ignored (its generation is stale). Subclasses implement the hooks.
class TimedCore: InputCore {
    let interval: UInt64
    let clock: SchedulerRef
    /// The pending timer. The cycle relay -> core -> timer -> closure ->
    /// relay lasts only until the timer runs or is cancelled (which drops its
    /// closure); `finish` cancels it, and a freed driven scheduler drops it.
    @exclusivity(unchecked) var timer: Disposable?
    @exclusivity(unchecked) var generation: Int64 = 0

    init(_ downstream: Sink, _ interval: UInt64, _ scheduler: Scheduler) {
        self.interval = interval
        clock = SchedulerRef(scheduler)
        super.init(downstream)
    }

    /// A value arrived on input `index` (`TimedInput.held` or `.immediate`).
    func onValue(_ index: Int, _ value: borrowing Value) {}
    /// The armed timer fired.
    func onTimer() {}
    /// The source completed: send what is due; the relay completes next.
    func onSourceCompleted() {}
    /// The subscription ended: release what is held.
    func dropState() {}

    /// (Re)starts the timer: a tick `interval` ns from now on the scheduler.
    final func arm() {
        guard let scheduler = clock.scheduler else { return disarm() }  // a freed driven scheduler never ticks
        arm(at: Scheduler.add(scheduler.now, interval), on: scheduler)
    }

    /// (Re)starts the timer: a tick at `deadline` on `scheduler`'s clock
    /// (the live scheduler of `clock`).
    final func arm(at deadline: UInt64, on scheduler: Scheduler) {
        timer?.dispose()
        generation &+= 1
        let g = generation
        let relay: Subscriber = self.relay
        let tick = ScheduledAction({ relay.send(.input(TimedInput.tick, .int(g))) }, interval: 0)
        tick.deadline = deadline
        timer = tick
        scheduler.enqueue(tick, at: deadline)
    }

    /// Cancels the timer, if any.
    final func disarm() {
        generation &+= 1
        timer?.dispose()
        timer = nil
    }

    final override func onInput(_ index: Int, _ value: borrowing Value) {
        guard index == TimedInput.tick else { return onValue(index, value) }
        guard value.intValue == generation else { return }  // replaced or cancelled meanwhile
        timer = nil
        onTimer()
    }

    /// The source completed: by default what is due goes now, then the
    /// completion (delay holds the completion back instead).
    override func onInputCompleted(_ index: Int) {
        disarm()
        onSourceCompleted()
        relay.sendCompleted()  // behind this delivery
    }

    final override func finish() {
        disarm()
        dropState()
        super.finish()
    }
}

/// A timed operator's subscription: `core` at the head of a new relay, the
/// source subscribed through the sink `upstream` makes for that relay.
func subscribeTimed(_ source: Signal, _ core: TimedCore, _ upstream: (Subscriber) -> RelaySink) -> Subscriber {
    let relay = Subscriber.make(core, subscribing: true)
    relay.subscribeUpstream(source, upstream(relay), held: true)
    return relay
}
