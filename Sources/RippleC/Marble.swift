// Marble tests (the runtime's Testing/Marble*.swift): diagrams in, signals,
// subjects and drawings out.
import CRipple
import Glibc
import Ripple

/// The table values[0..<count): borrowed, or (`owned`) consumed, also when
/// this fails. Refuses a count too large for an array (nothing read), a
/// NULL array with entries, and a bad entry (MarbleValues).
private func marbleTable(_ values: UnsafePointer<rpl_marble_value>?, _ count: Int, owned: Bool,
                         _ fn: StaticString) -> MarbleValues? {
    // size_t arrives as Int: a count above PTRDIFF_MAX is negative here.
    guard count >= 0, count <= Int.max / MemoryLayout<rpl_marble_value>.stride else {
        setError(RPL_ERR_INVALID, "\(fn): count \(UInt(bitPattern: count)) is too large for an array")
        return nil
    }
    guard count == 0 || values != nil else {
        setError(RPL_ERR_NULL, "\(fn): values is NULL with a count of \(count)")
        return nil
    }
    var entries: [MarbleValues.Entry] = []
    entries.reserveCapacity(count)
    for n in 0..<count {
        let e = values![n]
        entries.append(.init(key: Unicode.Scalar(UInt8(bitPattern: e.key)), value: unsafeBitCast(e.value, to: Value.self)))
    }
    do {
        return try MarbleValues(entries, owned: owned)
    } catch {
        setError(RPL_ERR_INVALID, "\(fn): values[\(error.index)] \(error.reason)")
        if owned { for e in entries where e.value.isListed { e.value.release() } }
        return nil
    }
}

/// A diagram's text, or nil (RPL_ERR_NULL) for NULL.
private func marbleText(_ p: UnsafePointer<CChar>?, _ fn: StaticString, what: StaticString) -> String? {
    guard let p else {
        setError(RPL_ERR_NULL, "\(fn): \(what) is NULL")
        return nil
    }
    return String(decoding: UnsafeRawBufferPointer(start: p, count: strlen(p)), as: UTF8.self)
}

/// Runs a diagram parser, turning its refusal into RPL_ERR_INVALID.
private func parsed<T>(_ text: String, _ fn: StaticString, _ parse: (String) throws(MarbleSyntaxError) -> T) -> T? {
    do {
        return try parse(text)
    } catch {
        setError(RPL_ERR_INVALID, "\(fn): column \(error.column) of \"\(text)\": \(error.reason)")
        return nil
    }
}

/// rpl_marble_cold and rpl_marble_hot: checks the scheduler, the diagram,
/// then the table (consumed either way), makes the marble and names it
/// "<prefix><diagram>".
private func marble(_ test: OpaquePointer?, _ marbles: UnsafePointer<CChar>?,
                    _ values: UnsafeMutablePointer<rpl_marble_value>?, _ count: Int, hot: Bool, _ fn: StaticString,
                    _ make: (MarbleDiagram, MarbleValues, TestScheduler) -> Signal) -> OpaquePointer? {
    guard let scheduler = testSchedulerArg(test, fn), let text = marbleText(marbles, fn, what: "marbles") else {
        // Consumed all the same (rule 19), without checking it: the first
        // failure is the one reported.
        if let values, count > 0, count <= Int.max / MemoryLayout<rpl_marble_value>.stride {
            for n in 0..<count { dropValue(values[n].value) }
        }
        return nil
    }
    guard let table = marbleTable(values, count, owned: true, fn) else { return nil }
    guard let diagram = parsed(text, fn, { (t: String) throws(MarbleSyntaxError) in try MarbleDiagram(t, subscriptionPoint: hot) }) else {
        table.release()
        return nil
    }
    let s = make(diagram, table, scheduler)
    ((hot ? "+hot: " : "+cold: ") + text).withCString { s.setName($0) }
    return retainedHandle(s)
}

@c @implementation
public func rpl_marble_cold(_ test: OpaquePointer?, _ marbles: UnsafePointer<CChar>?,
                            _ values: UnsafeMutablePointer<rpl_marble_value>?, _ count: Int) -> OpaquePointer? {
    marble(test, marbles, values, count, hot: false, "rpl_marble_cold") { MarbleColdSignal($0, $1, on: $2) }
}

@c @implementation
public func rpl_marble_hot(_ test: OpaquePointer?, _ marbles: UnsafePointer<CChar>?,
                           _ values: UnsafeMutablePointer<rpl_marble_value>?, _ count: Int) -> OpaquePointer? {
    marble(test, marbles, values, count, hot: true, "rpl_marble_hot") { MarbleHotSubject($0, $1, on: $2) }
}

/// rpl_marble_record and rpl_marble_expect: the scheduler, the signal, the
/// table (borrowed), then the subscription diagram.
private func marbleRunArgs(_ test: OpaquePointer?, _ sig: OpaquePointer?, _ subscription: UnsafePointer<CChar>?,
                           _ values: UnsafePointer<rpl_marble_value>?, _ count: Int,
                           _ fn: StaticString) -> (TestScheduler, Signal, MarbleValues, MarbleSubscription)? {
    guard let scheduler = testSchedulerArg(test, fn), let signal = signalArg(sig, fn),
          let table = marbleTable(values, count, owned: false, fn) else { return nil }
    guard let subscription, subscription.pointee != 0 else { return (scheduler, signal, table, .now) }
    let text = String(decoding: UnsafeRawBufferPointer(start: subscription, count: strlen(subscription)), as: UTF8.self)
    guard let sub = parsed(text, fn, { (t: String) throws(MarbleSyntaxError) in try MarbleSubscription(t) }) else { return nil }
    return (scheduler, signal, table, sub)
}

@c @implementation
public func rpl_marble_record(_ test: OpaquePointer?, _ sig: OpaquePointer?, _ subscription: UnsafePointer<CChar>?,
                              _ values: UnsafePointer<rpl_marble_value>?, _ count: Int) -> rpl_value {
    guard let (scheduler, signal, table, sub) = marbleRunArgs(test, sig, subscription, values, count, "rpl_marble_record") else {
        return cnil()
    }
    return toC(.string(MarbleTest.record(signal, on: scheduler, sub, table)))
}

@c @implementation
public func rpl_marble_expect(_ test: OpaquePointer?, _ sig: OpaquePointer?, _ subscription: UnsafePointer<CChar>?,
                              _ expected: UnsafePointer<CChar>?, _ values: UnsafePointer<rpl_marble_value>?,
                              _ count: Int) -> rpl_status {
    let fn: StaticString = "rpl_marble_expect"
    guard let (scheduler, signal, table, sub) = marbleRunArgs(test, sig, subscription, values, count, fn),
          let text = marbleText(expected, fn, what: "expected"),
          let diagram = parsed(text, fn, { (t: String) throws(MarbleSyntaxError) in try MarbleDiagram(t, subscriptionPoint: true) })
    else { return rpl_last_error() }
    guard let difference = MarbleTest.expect(signal, on: scheduler, sub, diagram, table) else { return rpl_status(RPL_OK) }
    setError(RPL_ERR_FAILED, "\(fn): \(difference)")
    return rpl_status(RPL_ERR_FAILED)
}

@c @implementation
public func rpl_marble_subscriptions(_ marble: OpaquePointer?) -> rpl_value {
    let fn: StaticString = "rpl_marble_subscriptions"
    guard let o = checked(marble, .signal, .subject, what: "a marble signal or subject", in: fn) else { return cnil() }
    let log: MarbleSubscriptionLog
    if let c = o as? MarbleColdSignal {
        log = c.log
    } else if let h = o as? MarbleHotSubject {
        log = h.log
    } else {
        setError(RPL_ERR_KIND, "\(fn): expected a signal from rpl_marble_cold or a subject from rpl_marble_hot")
        return cnil()
    }
    return toC(.string(log.lines.joined(separator: "\n")))
}
