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

/// What a shared connection does when its counts reach zero.
protocol SharedConnection: AnyObject {
    /// Runs `body` with the counts under the connection's lock.
    func withCounts<T>(_ body: (inout MemberCounts) -> T) -> T
    /// A member left (`last`: the last one).
    func memberLeft(last: Bool)
    /// The last member's handle was released: the source subscription is no
    /// longer held for them.
    func lastLetGo()
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
