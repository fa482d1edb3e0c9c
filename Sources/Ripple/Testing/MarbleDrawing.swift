// Drawing events as a diagram in the syntax MarbleDiagram reads, so that a
// drawing reads back as the same events wherever the syntax can say so.

/// Gaps up to this many frames (RxJS's diagrams are about as wide) are drawn with dashes, longer ones as a time
/// progression.
let marbleDashLimit: Int64 = 60

/// A drawn diagram, with where each event's character is.
public struct MarbleDrawing {
    public private(set) var text = ""
    /// Offset in `text` (characters) of each event drawn, in order.
    public private(set) var offsets: [Int] = []
    /// False when the syntax could not place some event where it happened:
    /// after a group, the next frame is as many frames on as the group has
    /// characters, and nothing can be drawn in between (nor before frame 0).
    public private(set) var exact = true
    private var cursor: Int64 = 0
    private var length = 0

    public init() {}

    /// Draws events given in time order.
    public init(_ events: [MarbleEvent]) {
        var i = 0
        while i < events.count {
            var j = i + 1
            while j < events.count && events[j].time == events[i].time { j += 1 }
            moveTo(events[i].time)
            let group = j - i > 1
            if group { append("(") }
            for e in events[i..<j] {
                offsets.append(length)
                switch e.kind {
                case .next(let c): append(String(c))
                case .completed: append("|")
                case .error: append("#")
                }
            }
            if group { append(")") }
            cursor += Int64(group ? j - i + 2 : 1) * marbleFrame
            i = j
        }
    }

    private mutating func append(_ s: String) {
        text += s
        length += s.unicodeScalars.count
    }

    /// Moves to `time`: dashes or a time progression.
    mutating func moveTo(_ time: Int64) {
        guard time >= cursor else {
            exact = false
            return
        }
        let gap = time - cursor
        cursor = time
        if gap == 0 { return }
        if gap % marbleFrame == 0 && gap / marbleFrame <= marbleDashLimit {
            append(String(repeating: "-", count: Int(gap / marbleFrame)))
        } else {
            // A progression starts the diagram or follows a space, and is
            // followed by one.
            if length > 0 && !text.hasSuffix(" ") { append(" ") }
            append(marbleDuration(gap) + " ")
        }
    }

    /// One subscription: `^` where it began, `!` where it ended (`(^!)` in
    /// the same frame), frames from 0.
    public static func subscription(_ subscribe: Int64, _ unsubscribe: Int64?) -> String {
        var d = MarbleDrawing()
        d.moveTo(subscribe)
        guard let u = unsubscribe else {
            d.append("^")
            return d.text
        }
        if u < subscribe + marbleFrame {
            // Within the frame of '^' ('!' takes no frame of its own).
            d.append("(^!)")
            return d.text
        }
        d.append("^")
        d.cursor += marbleFrame
        d.moveTo(u)
        d.append("!")
        return d.text
    }
}

/// `ns` as a time progression: whole minutes or seconds, else milliseconds
/// with as many decimals as it needs.
public func marbleDuration(_ ns: Int64) -> String {
    if ns % 60_000_000_000 == 0 { return "\(ns / 60_000_000_000)m" }
    if ns % 1_000_000_000 == 0 { return "\(ns / 1_000_000_000)s" }
    return marbleFrames(ns) + "ms"
}

/// `ns` in frames (ms): "3", or "1.5" between frames.
public func marbleFrames(_ ns: Int64) -> String {
    let whole = ns / marbleFrame, part = abs(ns % marbleFrame)
    if part == 0 { return "\(whole)" }
    var digits = String(part)
    digits = String(repeating: "0", count: 6 - digits.count) + digits
    while digits.hasSuffix("0") { digits.removeLast() }
    return "\(ns < 0 && whole == 0 ? "-" : "")\(whole).\(digits)"
}
