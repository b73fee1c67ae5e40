import Foundation

/// A listening socket on 127.0.0.1 with its accept thread: each connection is served on a
/// thread of its own, and `stop` shuts the listener and every open connection down. The test
/// servers (HTTP, the proxy) differ only in how they serve a connection.
final class LoopbackListener: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var stopped = false
    private var connections: Set<Int32> = []

    /// Listens at once; connections wait in the backlog until `start`.
    init() throws {
        (listener, port) = try listenOnLoopback()
    }

    /// Accepts on a thread named `name`; `serve` runs on a thread per connection, which is
    /// closed when it returns.
    func start(name: String, serve: @escaping @Sendable (Int32) -> Void) {
        let thread = Thread { [self] in acceptLoop(name: name, serve: serve) }
        thread.name = "\(name)-accept"
        thread.start()
    }

    func stop() {
        let open: Set<Int32>? = lock.withLock {
            if stopped { return nil }
            stopped = true
            return connections
        }
        guard let open else { return }
        // Only shut the socket down: the accept thread closes it on its way out, so the fd
        // number cannot be reused by another server while this thread may still accept on it.
        shutdown(listener, Int32(SHUT_RDWR))
        for connection in open { shutdown(connection, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop(name: String, serve: @escaping @Sendable (Int32) -> Void) {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let accepted = lock.withLock { () -> Bool in
                if stopped { return false }
                connections.insert(client)
                return true
            }
            guard accepted else {
                close(client)
                return
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            var noDelay: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            let thread = Thread { [self] in
                defer {
                    lock.withLock { _ = connections.remove(client) }
                    close(client)
                }
                serve(client)
            }
            thread.name = "\(name)-connection"
            thread.start()
        }
    }
}
