import Glibc
import RippleSupport

// read_lines: the lines read from a descriptor as strings, without "\n" or
// "\r\n"; an unterminated last line at end of input; then completes. A line
// longer than max_line bytes (its ending not counted) fails the signal with
// RPL_ERROR_LINE_TOO_LONG as soon as the bytes read show it, so memory stays
// bounded by max_line.
//
// Lines inside a chunk are sent straight from the read buffer; only the
// unfinished tail of a chunk is kept (`carry`), freed once empty, so an idle
// subscription holds no buffer. A line's string reuses the box of the one
// before when the receiver kept no reference to it (`spare`): a receiver
// that only reads its lines costs no allocation per line. The spare box is
// let go after each chunk, so an idle subscription holds none either.

public final class ReadLinesSignal: SourceSignal {
    let fd: Int32
    let maxLine: Int

    public init(fd: Int32, maxLine: Int, _ scheduler: Scheduler) {
        self.fd = fd
        self.maxLine = maxLine
        super.init(scheduler)
    }

    public override func makeWatch(_ subscriber: Subscriber, _ scheduler: Scheduler, _ watcher: Watcher?) throws(OSFailure) -> SourceWatch {
        try makeNonBlocking(fd)
        return ReadLinesWatch(fd: fd, maxLine: maxLine, subscriber, scheduler, watcher)
    }
}

extension RippleError.Code {
    /// `RPL_ERROR_LINE_TOO_LONG`.
    public static let lineTooLongCode: Int64 = 7
}

final class ReadLinesWatch: ReadWatch, @unchecked Sendable {
    let maxLine: Int
    @exclusivity(unchecked) private var carry: UnsafeMutablePointer<UInt8>? = nil
    @exclusivity(unchecked) private var carryCount = 0
    @exclusivity(unchecked) private var carryCapacity = 0
    @exclusivity(unchecked) private var spare: BytesBox? = nil

    init(fd: Int32, maxLine: Int, _ subscriber: Subscriber, _ scheduler: Scheduler, _ watcher: Watcher?) {
        self.maxLine = maxLine
        super.init(fd: fd, chunk: 64 * 1024, subscriber, scheduler, watcher)
    }

    deinit { free(carry) }

    override func consume(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // The watch holds its subscriber: borrowed for the chunk, so a line
        // costs no reference counting beyond its own string.
        defer { spare = nil }
        return Unmanaged.passUnretained(subscriber)._withUnsafeGuaranteedRef { sub in
            let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let n = bytes.count
            var p = 0
            while p < n {
                guard let nl = memchr(base + p, 0x0A, n - p) else {
                    return append(base + p, n - p)  // the unfinished tail
                }
                let end = UnsafeRawPointer(nl).assumingMemoryBound(to: UInt8.self) - base
                if carryCount > 0 {
                    guard append(base + p, end - p) else { return false }
                    let length = carryCount
                    carryCount = 0
                    if !send(sub, carry!, length) { return false }
                } else if !send(sub, base + p, end - p) {
                    return false
                }
                p = end + 1
            }
            if carryCount == 0 && carryCapacity > 4096 { dropCarry() }
            return true
        }
    }

    override func endOfInput() {
        if carryCount > 0 {
            // An unterminated last line keeps a trailing "\r" (only "\r\n" ends a line).
            let n = carryCount
            carryCount = 0
            if n > maxLine {
                tooLong()
                return
            }
            subscriber.sendNext(.string(bytes: UnsafeRawBufferPointer(start: carry, count: n)))
            if isDisposed { return }
        }
        dropCarry()
        subscriber.sendCompleted()
    }

    /// Sends one line (its "\n" already removed; a "\r" before it is removed here).
    @inline(__always)
    private func send(_ sub: Subscriber, _ p: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        var n = length
        if n > 0 && p[n - 1] == 0x0D { n -= 1 }
        if n > maxLine {
            tooLong()
            return false
        }
        // The value is lent from `spare`'s reference: delivered now, it costs
        // no reference counting; a receiver that keeps it retains it.
        let v = line(UnsafeRawBufferPointer(start: p, count: n))
        sub.sendNext(lent: v)
        return !isDisposed
    }

    /// A string value of `bytes` in the spare box (reused when nothing else
    /// holds it), borrowing the spare's reference; nil when out of memory.
    @inline(__always)
    private func line(_ bytes: UnsafeRawBufferPointer) -> Value {
        // Moved out and back (take), so reading the box costs no retain of its own.
        if var box = spare.take(), isKnownUniquelyReferenced(&box), box.reuse(copying: bytes) {
            let v = Value.lent(.string, box)
            spare = consume box
            return v
        }
        spare = BytesBox(copying: bytes)
        guard let box = spare else { return .nil }
        return Value.lent(.string, box)
    }

    /// Appends to the unfinished line; false (the subscription failed) once
    /// it is longer than max_line - a final "\r" does not count yet, it may
    /// begin the line's "\r\n" - or memory runs out.
    private func append(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        if n == 0 { return true }
        let need = carryCount + n
        if (p[n - 1] == 0x0D ? need - 1 : need) > maxLine {
            tooLong()
            return false
        }
        if need > carryCapacity {
            var cap = max(carryCapacity * 2, 128)
            while cap < need { cap *= 2 }
            guard let q = realloc(carry, cap) else {
                fail(ENOMEM, "read")
                return false
            }
            carry = q.assumingMemoryBound(to: UInt8.self)
            carryCapacity = cap
        }
        memcpy(carry! + carryCount, p, n)
        carryCount = need
        return true
    }

    private func dropCarry() {
        free(carry)
        carry = nil
        carryCount = 0
        carryCapacity = 0
    }

    private func tooLong() {
        subscriber.sendError(RippleError(domain: RippleError.runtimeDomain, code: RippleError.Code.lineTooLongCode,
                                         message: "read_lines: a line longer than \(maxLine) bytes"))
    }
}

extension Signal {
    /// The lines read from `fd` (at most `maxLine` bytes each), on `scheduler`.
    public static func readLines(_ fd: Int32, maxLine: Int, on scheduler: Scheduler) -> Signal {
        ReadLinesSignal(fd: fd, maxLine: maxLine, scheduler)
    }
}
