import CCurl
import FoundationEssentials
import Glibc

/// Receives an A2A agent's push notifications for the tasks hark follows (`hark watch
/// --listen HOST:PORT`). A2A 1.0 §4.3: the agent POSTs each update of the task to the URL of
/// its push notification config, as a StreamResponse (`{task}`, `{statusUpdate}` or
/// `{artifactUpdate}`; a2a-sdk 1.3.0 `server/tasks/base_push_notification_sender.py`), with the
/// config's token in `X-A2A-Notification-Token`. A request without a token hark gave out, or
/// with one given for another task, is answered 401 and changes nothing; an accepted one is
/// stored before it is answered, so nothing the agent was told arrived is lost.
public final class PushListener: @unchecked Sendable {
    let store: HistoryStore
    let socket: Int32
    /// The port listened on (the one asked for, or the kernel's pick for 0).
    public let port: Int
    public let host: String
    /// Told the work an accepted update is for, after it is stored.
    let received: @Sendable (Int64) -> Void
    private let stopped = Locked(false)

    public init(address: String, store: HistoryStore, received: @escaping @Sendable (Int64) -> Void) throws {
        let (host, port) = try Self.parse(address)
        self.store = store
        self.received = received
        self.host = host
        let (socket, bound) = try Self.bind(host: host, port: port)
        self.socket = socket
        self.port = bound
    }

    deinit { close(socket) }

    /// `HOST:PORT`, `[::1]:PORT`; `localhost` is 127.0.0.1.
    static func parse(_ address: String) throws -> (String, Int) {
        let usage = HarkError.usage("--listen takes HOST:PORT, e.g. 127.0.0.1:8765")
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
              (0...65535).contains(port) else { throw usage }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host.isEmpty { host = "127.0.0.1" }
        return (host, port)
    }

    static func bind(host: String, port: Int) throws -> (Int32, Int) {
        let family = host.contains(":") ? AF_INET6 : AF_INET
        let fd = Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HarkError.io("cannot open a socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var storage = sockaddr_storage()
        var length: socklen_t
        if family == AF_INET6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { close(fd); throw badHost(host) }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { $0.copyBytes(from: withUnsafeBytes(of: address) { Array($0) }) }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { close(fd); throw badHost(host) }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { $0.copyBytes(from: withUnsafeBytes(of: address) { Array($0) }) }
        }
        let bound = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw HarkError.io("cannot listen on \(host):\(port): \(reason)")
        }
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) } }
        let portBytes = withUnsafeBytes(of: actual) { Array($0[2..<4]) }
        return (fd, Int(portBytes[0]) << 8 | Int(portBytes[1]))
    }

    static func badHost(_ host: String) -> HarkError {
        HarkError.usage("--listen: \(MessageLine.name(host)) is not an IP address (127.0.0.1, ::1, 0.0.0.0 …)")
    }

    /// Accepts connections on a thread of its own until `stop`.
    public func start() {
        Threads.start(name: "hark-push") { [self] in
            while !stopped.read({ $0 }) {
                let client = accept(socket, nil, nil)
                if client < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    return
                }
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                Threads.start(name: "hark-push-in") { [self] in
                    serve(client)
                    close(client)
                }
            }
        }
    }

    public func stop() {
        stopped.update { $0 = true }
        shutdown(socket, Int32(SHUT_RDWR))
    }

    private func serve(_ client: Int32) {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        var answer: [UInt8]
        while true {
            do {
                if let request = try PushRequest.parse(bytes) {
                    let (status, text) = handle(request)
                    answer = PushRequest.response(status, text)
                    break
                }
            } catch PushRequest.Failure.refuse(let status, let why) {
                answer = PushRequest.response(status, why)
                break
            } catch {
                answer = PushRequest.response(400, "unreadable request")
                break
            }
            let count = recv(client, &buffer, buffer.count, 0)
            if count <= 0 { return }
            bytes += buffer[..<count]
        }
        var offset = 0
        while offset < answer.count {
            let sent = answer[offset...].withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    /// The status and the line to answer one request with.
    func handle(_ request: PushRequest) -> (Int, String) {
        guard request.method == "POST" else { return (405, "push notifications are POSTed") }
        guard let token = request.notificationToken, !token.isEmpty,
              let work = try? store.work(pushToken: token), Self.same(token, work.pushToken ?? "") else {
            return (401, "unknown or missing X-A2A-Notification-Token")
        }
        guard let json = try? JSON.parse(String(decoding: request.body, as: UTF8.self)),
              let event = try? A2AWire.event(fromResult: json) else {
            return (400, "the body is not an A2A task or task update")
        }
        // A token opens only the task it was given for.
        if let key = work.key, let taskID = Self.taskID(of: event), taskID != key {
            return (401, "that token was given for another task")
        }
        guard work.state == .live || work.state == .followed else { return (200, "already recorded") }
        do {
            try store.storeUpdate(workID: work.id, body: String(decoding: request.body, as: UTF8.self))
        } catch {
            return (500, "hark could not store it: " + error.userMessage)
        }
        received(work.id)
        return (200, "stored")
    }

    static func taskID(of event: A2AWire.Event) -> String? {
        switch event {
        case .task(let task): return task.id
        case .status(let taskID, _, _), .artifact(let taskID, _, _, _, _): return taskID
        case .message(let message): return message.taskID
        }
    }

    /// Compares in time that does not depend on where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}
