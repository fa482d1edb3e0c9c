// Schedulers: immediate, background, serial, test (virtual time) and run loop.
import CRipple
import Glibc
import Ripple

typealias WorkFn = @convention(c) (UnsafeMutableRawPointer?) -> Void

@inline(__always)
func schedulerArg(_ p: OpaquePointer?, _ fn: StaticString) -> Scheduler? {
    checked(p, .scheduler, what: "a scheduler", in: fn).map { unsafeDowncast($0, to: Scheduler.self) }
}

func testSchedulerArg(_ p: OpaquePointer?, _ fn: StaticString) -> TestScheduler? {
    guard let s = schedulerArg(p, fn) else { return nil }
    guard let t = s as? TestScheduler else {
        setError(RPL_ERR_KIND, "\(fn): expected a test scheduler")
        return nil
    }
    return t
}

func runLoopArg(_ p: OpaquePointer?, _ fn: StaticString) -> RunLoopScheduler? {
    guard let s = checked(p, .scheduler, what: "a run loop", in: fn) else { return nil }
    guard let r = s as? RunLoopScheduler else {
        setError(RPL_ERR_KIND, "\(fn): expected a run loop, got another scheduler")
        return nil
    }
    return r
}

@c @implementation
public func rpl_scheduler_immediate() -> OpaquePointer { handle(ImmediateScheduler.shared) }

@c @implementation
public func rpl_scheduler_background() -> OpaquePointer { handle(BackgroundScheduler.shared) }

@c @implementation
public func rpl_scheduler_create_serial(_ label: UnsafePointer<CChar>?) -> OpaquePointer? {
    retainedHandle(SerialScheduler(label: label.map { String(cString: $0) } ?? "ripple.serial"))
}

@c @implementation
public func rpl_scheduler_current() -> OpaquePointer? { Scheduler.current.map(handle) }

@c @implementation
public func rpl_scheduler_now(_ s: OpaquePointer?) -> UInt64 {
    schedulerArg(s, "rpl_scheduler_now")?.now ?? 0
}

/// Checks the common arguments of the scheduling calls: the scheduler (and,
/// for repeating work, that it can run timers), then fn, then the interval.
/// On failure release(ctx) runs and nil is returned.
private func workArgs(_ s: OpaquePointer?, _ fn: WorkFn?, _ ctx: UnsafeMutableRawPointer?,
                      _ release: rpl_release_fn?, _ name: StaticString, repeating: UInt64? = nil) -> (Scheduler, WorkFn)? {
    guard let scheduler = schedulerArg(s, name),
          repeating == nil || timerScheduler(scheduler, name) else { return rejected(releasing: ctx, release) }
    guard let fn else {
        setError(RPL_ERR_NULL, "\(name): fn is NULL")
        return rejected(releasing: ctx, release)
    }
    if repeating == 0 {
        setError(RPL_ERR_INVALID, "\(name): interval_ns is 0")
        return rejected(releasing: ctx, release)
    }
    return (scheduler, fn)
}

@c @implementation
public func rpl_scheduler_schedule(_ s: OpaquePointer?, _ fn: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
                                   _ ctx: UnsafeMutableRawPointer?, _ release: rpl_release_fn?) -> OpaquePointer? {
    guard let (scheduler, fn) = workArgs(s, fn, ctx, release, "rpl_scheduler_schedule") else { return nil }
    return retainedHandle(scheduler.submit(ScheduledAction(function: fn, context: ctx, release: release), after: nil))
}

@c @implementation
public func rpl_scheduler_after(_ s: OpaquePointer?, _ delay_ns: UInt64,
                                _ fn: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
                                _ ctx: UnsafeMutableRawPointer?, _ release: rpl_release_fn?) -> OpaquePointer? {
    guard let (scheduler, fn) = workArgs(s, fn, ctx, release, "rpl_scheduler_after") else { return nil }
    return retainedHandle(scheduler.submit(ScheduledAction(function: fn, context: ctx, release: release), after: delay_ns))
}

@c @implementation
public func rpl_scheduler_repeat(_ s: OpaquePointer?, _ delay_ns: UInt64, _ interval_ns: UInt64,
                                 _ fn: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
                                 _ ctx: UnsafeMutableRawPointer?, _ release: rpl_release_fn?) -> OpaquePointer? {
    guard let (scheduler, fn) = workArgs(s, fn, ctx, release, "rpl_scheduler_repeat", repeating: interval_ns) else { return nil }
    let action = ScheduledAction(function: fn, context: ctx, release: release, interval: interval_ns)
    return retainedHandle(scheduler.submit(action, after: delay_ns))
}

/// False (with the error set) for the immediate scheduler, which cannot run
/// repeating or pending timers without blocking its caller forever.
func timerScheduler(_ s: Scheduler, _ fn: StaticString) -> Bool {
    if s.supportsRepeating { return true }
    setError(RPL_ERR_INVALID, "\(fn): the immediate scheduler cannot run timers (it would block the caller)")
    return false
}

// MARK: Test scheduler

@c @implementation
public func rpl_test_scheduler_create() -> OpaquePointer? { retainedHandle(TestScheduler()) }

@c @implementation
public func rpl_test_scheduler_advance_by(_ s: OpaquePointer?, _ ns: UInt64) -> rpl_status {
    guard let t = testSchedulerArg(s, "rpl_test_scheduler_advance_by") else { return rpl_last_error() }
    t.advance(by: ns)
    return rpl_status(RPL_OK)
}

@c @implementation
public func rpl_test_scheduler_run(_ s: OpaquePointer?) -> rpl_status {
    guard let t = testSchedulerArg(s, "rpl_test_scheduler_run") else { return rpl_last_error() }
    t.runAll()
    return rpl_status(RPL_OK)
}

// MARK: Run loop

@c @implementation
public func rpl_run_loop_create() -> OpaquePointer? {
    guard let r = RunLoopScheduler.make() else {
        setError(RPL_ERR_NOMEM, "rpl_run_loop_create: cannot create its descriptors (errno \(errno))")
        return nil
    }
    return retainedHandle(r)
}

@c @implementation
public func rpl_run_loop_scheduler(_ loop: OpaquePointer?) -> OpaquePointer? {
    runLoopArg(loop, "rpl_run_loop_scheduler").map(handle)
}

@c @implementation
public func rpl_run_loop_fd(_ loop: OpaquePointer?) -> Int32 {
    runLoopArg(loop, "rpl_run_loop_fd")?.fd ?? -1
}

/// Runs `body` on a checked run loop, mapping "driven by another thread".
private func driving(_ loop: OpaquePointer?, _ fn: StaticString,
                     _ body: (RunLoopScheduler) throws(RunLoopScheduler.DriveError) -> Int64) -> Int64 {
    guard let r = runLoopArg(loop, fn) else { return Int64(rpl_last_error()) }
    do {
        return try body(r)
    } catch {
        setError(RPL_ERR_STATE, "\(fn): another thread is driving this run loop")
        return Int64(RPL_ERR_STATE)
    }
}

@c @implementation
public func rpl_run_loop_run_until_idle(_ loop: OpaquePointer?) -> Int64 {
    driving(loop, "rpl_run_loop_run_until_idle") { r throws(RunLoopScheduler.DriveError) in Int64(try r.runUntilIdle()) }
}

@c @implementation
public func rpl_run_loop_run_one(_ loop: OpaquePointer?) -> Int64 {
    driving(loop, "rpl_run_loop_run_one") { r throws(RunLoopScheduler.DriveError) in try r.runOne() ? 1 : 0 }
}

@c @implementation
public func rpl_run_loop_run(_ loop: OpaquePointer?) -> rpl_status {
    rpl_status(driving(loop, "rpl_run_loop_run") { r throws(RunLoopScheduler.DriveError) in
        try r.run()
        return 0
    })
}

@c @implementation
public func rpl_run_loop_stop(_ loop: OpaquePointer?) -> rpl_status {
    guard let r = runLoopArg(loop, "rpl_run_loop_stop") else { return rpl_last_error() }
    r.stop()
    return rpl_status(RPL_OK)
}

@c @implementation
public func rpl_run_loop_next_timeout(_ loop: OpaquePointer?) -> UInt64 {
    runLoopArg(loop, "rpl_run_loop_next_timeout")?.timeUntilNext ?? .max
}
