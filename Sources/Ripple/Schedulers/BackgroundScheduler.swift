import Glibc

/// The shared concurrent pool: jobs start in FIFO order and run on up to one
/// thread per core (at least two). Never freed.
public final class BackgroundScheduler: WorkerScheduler, @unchecked Sendable {
    public static let shared = BackgroundScheduler()

    private init() {
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        super.init(label: "ripple.background", maxThreads: max(2, cores), linger: 1_000_000_000)
        excludeFromLiveCount()  // never freed
    }
}
