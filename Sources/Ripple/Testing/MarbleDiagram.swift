// Marble diagrams, read as RxJS's TestScheduler reads them in run mode: `-`
// one frame, any other character a value in one frame, `(ab)` a group in one
// frame (the group takes as many frames as it has characters), `|`
// completion, `#` an error, `^` the subscription point, `!` unsubscription,
// spaces ignored, and `10ms` / `1.5s` / `2m` (at the start or after a space,
// and followed by a space) a time progression. One frame is 1 ms.

/// One frame of virtual time, in ns.
public let marbleFrame: Int64 = 1_000_000

/// Why a diagram was refused, and where (1-based column, in characters).
public struct MarbleSyntaxError: Error {
    public let column: Int
    public let reason: String
}

/// What a diagram sends at one time.
public struct MarbleEvent {
    public enum Kind: Equatable {
        /// A value, drawn as this character.
        case next(Unicode.Scalar)
        case error
        case completed
    }
    /// ns from frame 0 (negative before a hot diagram's `^`).
    public var time: Int64
    public var kind: Kind
    public init(time: Int64, kind: Kind) {
        self.time = time
        self.kind = kind
    }
}

/// A diagram of events (a cold or hot signal's, or an expected one).
public struct MarbleDiagram {
    public let events: [MarbleEvent]
    /// ns at the end of the diagram (where its last character ends).
    public let end: Int64

    /// Reads `text`. `subscriptionPoint`: whether `^` may mark frame 0 (hot
    /// and expected diagrams; a cold one starts at its subscription). Frames
    /// count from the `^`, placed where the frames before it put it.
    public init(_ text: String, subscriptionPoint: Bool) throws(MarbleSyntaxError) {
        var reader = MarbleReader(text)
        var events: [MarbleEvent] = []
        var caret: Int64?
        var ended: Unicode.Scalar?
        while let c = try reader.next() {
            switch c {
            case "^":
                guard subscriptionPoint else { throw reader.error("'^' in a cold diagram (a cold signal starts when it is subscribed)") }
                guard caret == nil else { throw reader.error("a second '^'") }
                guard reader.groupStart == nil else { throw reader.error("'^' inside a group") }
                caret = reader.time
                try reader.advance()
            case "!":
                throw reader.error("'!' in a diagram of events (only a subscription diagram unsubscribes)")
            default:
                if let e = ended { throw reader.error("an event after '\(e)'") }
                let kind: MarbleEvent.Kind = c == "|" ? .completed : c == "#" ? .error : .next(c)
                if c == "|" || c == "#" { ended = c }
                events.append(MarbleEvent(time: reader.eventTime, kind: kind))
                try reader.advance()
            }
        }
        try reader.finish()
        let origin = caret ?? 0
        self.events = events.map { MarbleEvent(time: $0.time - origin, kind: $0.kind) }
        end = reader.time - origin
    }
}

/// A subscription diagram: `^` where it subscribes (frame 0 without one),
/// `!` where it unsubscribes (never without one).
public struct MarbleSubscription: Sendable {
    public let subscribe: Int64
    public let unsubscribe: Int64?
    /// ns at the end of the diagram.
    public let end: Int64

    public static let now = MarbleSubscription(subscribe: 0, unsubscribe: nil, end: 0)

    init(subscribe: Int64, unsubscribe: Int64?, end: Int64) {
        self.subscribe = subscribe
        self.unsubscribe = unsubscribe
        self.end = end
    }

    public init(_ text: String) throws(MarbleSyntaxError) {
        var reader = MarbleReader(text)
        var sub: Int64?
        var unsub: Int64?
        while let c = try reader.next() {
            switch c {
            case "^":
                guard sub == nil else { throw reader.error("a second '^'") }
                guard unsub == nil else { throw reader.error("'^' after '!'") }
                sub = reader.eventTime
                try reader.advance()
            case "!":
                guard unsub == nil else { throw reader.error("a second '!'") }
                unsub = reader.eventTime  // '!' takes no frame (RxJS)
            default:
                throw reader.error("'\(c)' in a subscription diagram (only '^', '!', '-', groups and time progressions)")
            }
        }
        try reader.finish()
        subscribe = sub ?? 0
        unsubscribe = unsub
        end = max(reader.time, unsub ?? 0)
    }
}

/// The part both kinds of diagram share: frames, groups, spaces and time
/// progressions. `next()` returns each other character, with `time` (or
/// `eventTime`, inside a group) at it; the caller then `advance`s a frame.
struct MarbleReader {
    let scalars: [Unicode.Scalar]
    var i = 0
    /// Column (0-based) of the character last returned.
    var column = 0
    var time: Int64 = 0
    var groupStart: Int64?
    var groupColumn = 0

    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    func error(_ reason: String, at col: Int? = nil) -> MarbleSyntaxError {
        MarbleSyntaxError(column: (col ?? column) + 1, reason: reason)
    }

    /// Where an event at the current character happens: a group's events
    /// share its first frame.
    var eventTime: Int64 { groupStart ?? time }

    mutating func advance(by ns: Int64 = marbleFrame) throws(MarbleSyntaxError) {
        let (t, o) = time.addingReportingOverflow(ns)
        if o { throw error("the diagram is too long") }
        time = t
    }

    mutating func next() throws(MarbleSyntaxError) -> Unicode.Scalar? {
        while i < scalars.count {
            let c = scalars[i]
            column = i
            i += 1
            switch c {
            case " ":
                continue
            case "-":
                try advance()
            case "(":
                guard groupStart == nil else { throw error("'(' inside a group") }
                groupStart = time
                groupColumn = column
                try advance()
            case ")":
                guard groupStart != nil else { throw error("')' without '('") }
                groupStart = nil
                try advance()
            default:
                if ("0"..."9").contains(c),
                   column == 0 || scalars[column - 1] == " ",
                   let ns = try progression(at: column) {
                    try advance(by: ns)
                    continue
                }
                return c
            }
        }
        return nil
    }

    mutating func finish() throws(MarbleSyntaxError) {
        if groupStart != nil { throw error("'(' without ')'", at: groupColumn) }
    }

    /// A time progression starting at `start` (`[0-9]+(.[0-9]+)?(ms|s|m) `):
    /// its length in ns, with `i` moved past it; nil if there is none there.
    mutating func progression(at start: Int) throws(MarbleSyntaxError) -> Int64? {
        var j = start
        func digits() -> [UInt8] {
            var d: [UInt8] = []
            while j < scalars.count, ("0"..."9").contains(scalars[j]) {
                d.append(UInt8(scalars[j].value - 48))
                j += 1
            }
            return d
        }
        let whole = digits()
        var fraction: [UInt8] = []
        if j + 1 < scalars.count, scalars[j] == ".", ("0"..."9").contains(scalars[j + 1]) {
            j += 1
            fraction = digits()
        }
        let unit: Int64
        if j + 2 < scalars.count, scalars[j] == "m", scalars[j + 1] == "s", scalars[j + 2] == " " {
            unit = 1_000_000
            j += 3
        } else if j + 1 < scalars.count, scalars[j] == "s", scalars[j + 1] == " " {
            unit = 1_000_000_000
            j += 2
        } else if j + 1 < scalars.count, scalars[j] == "m", scalars[j + 1] == " " {
            unit = 60_000_000_000
            j += 2
        } else {
            return nil
        }
        // whole * unit + fraction * unit / 10^k, exactly where ns allow it
        // (finer than 1 ns is rounded down).
        var ns: Int64 = 0
        for d in whole {
            let (m, o1) = ns.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int64(d))
            if o1 || o2 { throw error("the time progression is too long") }
            ns = a
        }
        let (w, o) = ns.multipliedReportingOverflow(by: unit)
        if o { throw error("the time progression is too long") }
        var part = unit
        var frac: Int64 = 0
        for d in fraction {
            part /= 10
            frac += Int64(d) * part
        }
        let (total, o3) = w.addingReportingOverflow(frac)
        if o3 { throw error("the time progression is too long") }
        i = j
        return total
    }
}
