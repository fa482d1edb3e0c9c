import RippleSupport

/// RAC's groupBy: for each source value, `key(v)`; the first time a key is
/// seen, a tuple (key, group signal) is sent; then the value goes to that
/// key's group. A group signal is the subscribe side of a plain subject
/// (rule 7): a subscriber gets the values sent after it subscribed (so one
/// that subscribes from the outer subscriber's callback gets the value that
/// made the group), and a late one gets the terminal event at once. The
/// source's completion or error ends the outer signal first, then every group
/// in the order they were made (RAC). A failing key callback (rule 24), or
/// one returning a value ripple.h does not list (rule 19a), fails the outer
/// signal and every group with that error. Disposing the outer subscription
/// disposes the source even while groups are subscribed (RAC): the
/// subjects are dropped, so the group subscriptions get nothing more and end
/// without an event once their handles go (rule 6a). Groups are found by hash (`ValueKey`): a value costs O(1)
/// lookups, however many groups there are (rule 23).
public final class GroupBySignal: CallbackOperatorSignal<MapFunction> {
    override func makeSink(_ downstream: consuming Sink) -> Sink { GroupBySink(callback, downstream) }
}

final class GroupBySink: CallbackSink<MapFunction> {
    /// Key (owned) to position in `groups`.
    @exclusivity(unchecked) var index: [ValueKey: Int] = [:]
    /// The groups' subjects, in the order they were made. Only this sink
    /// sends into them, and it drops them when the subscription ends.
    @exclusivity(unchecked) var groups: [Subject] = []

    override func onNext(_ value: borrowing Value) {
        if stopped { return }
        let (key, failed) = call.map(value)
        if failed, let failure = takeFailure() {
            if key.isListed { key.release() }  // discarded (rule 24)
            return fail(failure)
        }
        guard key.isListed else {
            return fail(.runtime(.callback, "rpl_signal_group_by: the key callback returned a value of type \(key.rawType), which ripple.h does not list"))
        }
        let group: Subject
        if let i = index[ValueKey(key)] {
            key.release()
            group = groups[i]
        } else {
            group = Subject()
            group.setOrigin(.constructor("+groupBy: group"))  // holds nothing (no cycle through the source)
            index[ValueKey(key)] = groups.count  // the index owns the key
            groups.append(group)
            let tuple = Value.tuple([key.retained(), .signal(group.source)])
            downstream.onNext(tuple)
            tuple.release()
        }
        group.sendNext(value.retained())
    }

    /// Ends the outer signal with `error`, then every group.
    func fail(_ error: RippleError) {
        stop(error)
        for g in groups { g.sendError(error) }
    }

    override func onError(_ error: RippleError) {
        let wasStopped = stopped
        super.onError(error)
        if !wasStopped { for g in groups { g.sendError(error) } }
    }

    override func onCompleted() {
        let wasStopped = stopped
        super.onCompleted()
        if !wasStopped { for g in groups { g.sendCompleted() } }
    }

    override func finish() {
        for k in index.keys { k.value.release() }
        index = [:]
        groups = []  // a group nobody can send to any more ends (rule 6a)
        super.finish()
    }
}

/// A value as a dictionary key: equal as `Value.equal` (rpl_value_equal),
/// hashed compatibly (equal values hash alike: strings and bytes by content,
/// tuples by their items, pointers by the pointer, doubles with -0 as 0,
/// signals and events by identity). Does not own the value.
struct ValueKey: Hashable {
    let value: Value
    init(_ value: Value) { self.value = value }

    static func == (a: ValueKey, b: ValueKey) -> Bool { Value.equal(a.value, b.value) }

    func hash(into h: inout Hasher) {
        // Nested tuples are walked with a work list (their depth is the
        // caller's); the items stay alive through `value`.
        var work: [Value] = [value]
        while let v = work.popLast() {
            h.combine(v.rawType)
            switch v.type {
            case .nil: break
            case .bool: h.combine(v.bits != 0)
            case .int, .signal, .event: h.combine(v.bits)
            case .double:
                let d = Double(bitPattern: v.bits)
                h.combine(d == 0 ? 0 : v.bits)  // 0.0 == -0.0
            case .string, .bytes:
                if let b = v.bytesBox { h.combine(bytes: UnsafeRawBufferPointer(b.buffer)) } else { h.combine(v.bits) }
            case .pointer: h.combine(v.pointerValue.map { UInt(bitPattern: $0) } ?? 0)
            case .tuple:
                guard let items = v.tupleItems else { break }
                h.combine(items.count)
                work.append(contentsOf: items.reversed())
            }
        }
    }
}

extension Signal {
    /// Groups values by `key` (RAC's groupBy:).
    public func groupBy(_ key: Callback<MapFunction>) -> Signal { GroupBySignal(self, key) }
}
