// start_lazily and start_eagerly (RAC's startLazilyWithScheduler:block: and
// startEagerlyWithScheduler:block:): a body runs once, as work on a
// scheduler, with a subscriber to send to; everything it sends is kept in an
// unlimited replay subject and replayed to every subscriber, which is
// subscribed on the scheduler too. start_lazily runs the body at the first
// subscription, start_eagerly at once. Subscribers leaving never cancel the
// body's work, and neither does releasing the signal (semantics 27).
//
// As in RAC: a lazy replay (connected on the first subscription, never
// disconnected) of a cold signal running the body, subscribed on the
// scheduler; start_eagerly subscribes to it once, for good.

public enum StartSignals {
    /// The signal that subscribes to `body` once, on `scheduler`, at its
    /// first subscription and replays what it sent.
    public static func lazily(on scheduler: Scheduler, _ body: CreateSignal) -> Signal {
        // Its connecting side only, as the C API's operators keep a
        // replay_lazily signal (`asSource`): the handle keeps the replay
        // subject, and an operator keeping this signal to subscribe again
        // later (concat, switch_if_empty, ...) would keep it in a cycle with
        // the subscriptions the subject holds.
        SubscribeOnSignal(body.replayLazily().asSource, scheduler)
    }

    /// Like `lazily`, with the body already scheduled.
    public static func eagerly(on scheduler: Scheduler, _ body: CreateSignal) -> Signal {
        let signal = lazily(on: scheduler, body)
        // This subscription is never disposed: it ends with the body's
        // subscription (or, if the body lets go of its subscriber without
        // ending it, when nothing can send any more, rule 6a).
        signal.subscribe(Sink()).letGo()
        return signal
    }
}
