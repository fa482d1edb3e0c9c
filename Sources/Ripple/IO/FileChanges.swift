import Glibc
import RippleSupport

// file_changes: changes in a directory (or to one file), as tuples (name,
// RPL_FILE_* flags); a name is relative to the watched directory, and an
// event about the watched path itself carries the path's own last
// component. When the watched path goes away (deleted, or moved away) that
// event is sent and the signal completes. Each subscription owns an inotify
// instance (fs.inotify.max_user_instances limits how many exist at once:
// beyond it, an EMFILE error event).

public final class FileChangesSignal: SourceSignal {
    let path: String

    public init(path: String, _ scheduler: Scheduler) {
        self.path = path
        super.init(scheduler)
    }

    public override func makeWatch(_ subscriber: Subscriber, _ scheduler: Scheduler, _ watcher: Watcher?) throws(OSFailure) -> SourceWatch {
        var isDir: Int32 = 0
        let fd = ripple_io_inotify_watch(path, &isDir)
        if fd < 0 { throw OSFailure(ripple_io_errno(), "inotify_add_watch") }
        var own = path
        while own.count > 1 && own.hasSuffix("/") { own.removeLast() }
        let name = own.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? own
        return FileChangesWatch(fd: fd, ownName: name.isEmpty ? "/" : name, subscriber, scheduler, watcher)
    }
}

final class FileChangesWatch: SourceWatch, @unchecked Sendable {
    let ownName: String

    init(fd: Int32, ownName: String, _ subscriber: Subscriber, _ scheduler: Scheduler, _ watcher: Watcher?) {
        self.ownName = ownName
        super.init(fd: fd, subscriber, scheduler, watcher, interest: UInt32(RIPPLE_IO_IN))
    }

    // The inotify instance is closed only here: no job can be using it any more.
    deinit { close(fd) }

    override func handle(_ events: UInt32) -> Bool {
        let size = 64 * 1024
        guard let buf = malloc(size) else {
            fail(ENOMEM, "read")
            return false
        }
        defer { free(buf) }
        while true {
            var err: Int32 = 0
            guard let n = io({ ripple_io_read(fd, buf, size, &err) }) else { return false }
            if n < 0 {
                if err == EAGAIN || err == EWOULDBLOCK { return true }
                fail(err, "read")
                return false
            }
            var offset = 0
            var name: UnsafePointer<CChar>? = nil
            var flags: Int32 = 0, isSelf: Int32 = 0, gone: Int32 = 0
            let chars = buf.assumingMemoryBound(to: CChar.self)
            while ripple_io_inotify_next(chars, n, &offset, &name, &flags, &isSelf, &gone) != 0 {
                if flags != 0 {
                    let item: Value = isSelf != 0 ? .string(ownName) : .string(bytes: UnsafeRawBufferPointer(start: name, count: strlen(name!)))
                    subscriber.sendNext(.tuple([item, .int(Int64(flags))]))
                    if isDisposed { return false }
                }
                if gone != 0 {
                    subscriber.sendCompleted()
                    return false
                }
            }
        }
    }
}

extension Signal {
    /// Changes under `path` as tuples (name, RPL_FILE_* flags), on `scheduler`.
    public static func fileChanges(_ path: String, on scheduler: Scheduler) -> Signal {
        FileChangesSignal(path: path, scheduler)
    }
}
