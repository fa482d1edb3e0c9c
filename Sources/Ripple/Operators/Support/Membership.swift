// "Connect on the first subscriber, disconnect on the last", shared by
// autoconnect, replay_lazily and share (docs/behaviour.md#lifetime-multicast).
// A connection's source subscription is consumed by the connection: it is
// held strongly while a member holds its handle. Each member of a shared
// connection is counted twice: as a subscriber (the last one to leave
// disconnects) and as a holder (the last handle released lets the source
// subscription go, which then lives as long as its producer can send;
// without that, the members, the subject and the source subscription would
// hold each other in a cycle).

/// The counts of a shared connection; its owner's lock guards them.
struct MemberCounts {
    /// Members whose subscription has not ended.
    var members = 0
    /// Members whose handle is held, among them.
    var held = 0
}

/// A shared connection: its lock, its members' counts and its source
/// subscription. The defaults below are the one "connect on the first
/// member, disconnect when the last leaves, hold the source subscription
/// while a member holds its handle" (autoconnect and share).
protocol SharedConnection: AnyObject {
    /// Guards `counts` and `connection`.
    var lock: Lock { get }
    var counts: MemberCounts { get set }
    /// The source subscription (or what holds it) once the first member
    /// connected; nil again once disconnected.
    var connection: Disposable? { get set }
    /// A member left (`last`: the last one). Default: the last disconnects.
    func memberLeft(last: Bool)
    /// The last member's handle was released: the source subscription is no
    /// longer held for them (it lives while its producer can send).
    func lastLetGo()
    /// Under `lock`, as the last member's leave disconnects. Default: nothing.
    func disconnecting()
}

/// What to do with a source subscription a connection was offered, once
/// its lock is released.
enum Adoption {
    /// Kept (or it was the connection already held): nothing.
    case kept
    /// Kept, but no member holds its handle any more: let it go.
    case unheld
    /// Every member left before it existed: dispose it.
    case stale

    func apply(to d: Disposable) {
        switch self {
        case .kept: break
        case .unheld: d.letGo()
        case .stale: d.dispose()
        }
    }
}

extension SharedConnection {
    /// Runs `body` with the counts under the connection's lock.
    func withCounts<T>(_ body: (inout MemberCounts) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&counts)
    }

    /// The source subscription `d` exists (before the source's subscribe
    /// callback runs, rule 3a): kept while a member remains; the caller
    /// applies the result outside the lock.
    func adopt(_ d: Disposable) -> Adoption {
        lock.lock()
        defer { lock.unlock() }
        if counts.members == 0 { return .stale }
        if connection != nil { return .kept }
        connection = d
        return counts.held == 0 ? .unheld : .kept
    }

    /// Disposes the source subscription if no member is left.
    func disconnect() {
        lock.lock()
        guard counts.members == 0 else { return lock.unlock() }
        let d = connection
        connection = nil
        disconnecting()
        lock.unlock()
        d?.dispose()
    }

    func memberLeft(last: Bool) { if last { disconnect() } }
    func lastLetGo() { lock.withLock { connection }?.letGo() }
    func disconnecting() {}
}

/// One member's place: a resource of its subscription. Disposing it (the
/// subscription ended) leaves; `letGo` (its handle released) stops holding.
final class Membership: Disposable {
    unowned(unsafe) let owner: SharedConnection
    /// Keeps `owner` alive: members keep their connection (to leave it).
    let keep: AnyObject
    /// 0: held; 1: let go; 2: left. Under the owner's lock.
    @exclusivity(unchecked) var state = 0

    /// Joins `owner` (held, counted); returns the membership and whether it is
    /// the first member.
    static func join(_ owner: SharedConnection) -> (Membership, Bool) {
        let m = Membership(owner)
        let first = owner.withCounts { c -> Bool in
            c.members += 1
            c.held += 1
            return c.members == 1
        }
        return (m, first)
    }

    /// A membership the caller already counted (`members` and `held`, under
    /// the owner's lock).
    static func counted(_ owner: SharedConnection) -> Membership { Membership(owner) }

    private init(_ owner: SharedConnection) {
        self.owner = owner
        keep = owner
        super.init()
    }

    override func dispose() {
        let (lastHeld, last) = owner.withCounts { c -> (Bool, Bool?) in
            if state == 2 { return (false, nil) }
            let wasHeld = state == 0
            state = 2
            c.members -= 1
            if wasHeld { c.held -= 1 }
            return (wasHeld && c.held == 0, c.members == 0)
        }
        guard let last else { return }
        if lastHeld { owner.lastLetGo() }
        owner.memberLeft(last: last)
    }

    override func letGo() {
        let last = owner.withCounts { c -> Bool in
            if state != 0 { return false }
            state = 1
            c.held -= 1
            return c.held == 0
        }
        if last { owner.lastLetGo() }
    }

    override var isDisposed: Bool { owner.withCounts { _ in state == 2 } }
}
