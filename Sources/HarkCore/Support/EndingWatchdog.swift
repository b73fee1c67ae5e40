import Glibc

/// The last word on ending: once hark has been told to end (SIGTERM, SIGQUIT, SIGHUP, the
/// terminal gone), it has `grace` seconds to stop its reply, record it and leave; if it is
/// still running then, something is stuck (a thread waiting on a lock that is never let go, a
/// library call that never returns) and the watchdog ends the process itself.
///
/// Every wait in hark is meant to end when hark is told to end, and the tests hold it to one
/// second. The watchdog is for the wait nobody knew was there: the deadlock found in the
/// history store kept hark alive, deaf to SIGTERM, for two hours. It runs on a thread of its
/// own, so a stuck main thread or a stuck pool cannot hold it back; what it does on expiry
/// must be safe from any state (restore the terminal, one line, `_exit`).
public enum EndingWatchdog {
    /// Long enough for an ending that is only slow: on a machine loaded to several times its
    /// cores (a whole test suite on two), a hark told to end while it waited on a `cmd:` secret
    /// was cut off at 5 s before it had ended the command. Short enough that a stuck hark
    /// does not linger unseen behind a closed terminal (the deadlock lingered two hours).
    public static let grace = 30.0

    /// Starts a thread that waits until `trigger` becomes readable, then `grace` seconds more,
    /// and calls `expire` if the process is still there to call it.
    public static func start(trigger: Int32, grace: Double = grace, expire: @escaping @Sendable () -> Void) {
        Threads.start(name: "hark-watchdog") {
            var entry = pollfd(fd: trigger, events: Int16(POLLIN), revents: 0)
            while poll(&entry, 1, -1) < 0 && errno == EINTR {}
            var asked = timespec(tv_sec: Int(grace), tv_nsec: Int((grace - grace.rounded(.down)) * 1e9))
            var left = timespec()
            while nanosleep(&asked, &left) < 0 && errno == EINTR { asked = left }
            expire()
        }
    }
}
