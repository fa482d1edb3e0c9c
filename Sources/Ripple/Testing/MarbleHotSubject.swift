// A hot marble subject: plays its diagram once, on the test scheduler, from
// its creation, which is frame 0 (the diagram's `^`). What comes before `^`
// is sent at creation, before anyone can have subscribed: values reach no
// one, but a terminal event there ends the subject before frame 0.

public final class MarbleHotSubject: Subject, @unchecked Sendable {
    public let log: MarbleSubscriptionLog
    let play: MarblePlay

    /// Consumes `values`' references.
    public init(_ diagram: MarbleDiagram, _ values: MarbleValues, on scheduler: TestScheduler) {
        play = MarblePlay(diagram, values)
        values.release()
        let ref = SchedulerRef(scheduler)
        let log = MarbleSubscriptionLog(origin: scheduler.now)
        self.log = log
        super.init(hub: SubjectHub(replay: nil))
        parts.hub.joining = { x in x.addResource(log.subscribed(on: ref)) }
        if let last = play.events.last { scheduler.extendHorizon(to: Scheduler.add(scheduler.now, UInt64(max(last.time, 0)))) }
        for (n, e) in play.events.enumerated() {
            if e.time < 0 {
                send(play.copy(n))
                continue
            }
            // The job keeps the subject while it can still send (rule 6a).
            scheduler.schedule(after: UInt64(e.time)) { [self] in send(play.copy(n)) }
        }
    }
    deinit { play.release() }
}
