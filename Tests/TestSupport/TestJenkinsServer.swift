import Foundation
import HarkCore

/// A loopback Jenkins implementing the remote API hark uses, as Jenkins answers it: the job
/// tree with folders, parameter definitions, `buildWithParameters` answering 201 with a
/// queue item in `Location`, queue items that wait and then leave with `executable.number`,
/// progressiveText (X-Text-Size offsets, X-More-Data while running, whole lines only,
/// CR LF line ends, gzip over 4 KB, a restart from 0 when `start` is past the end), stop,
/// queue cancel, Basic auth with passwords and API tokens, and a crumb issuer whose crumbs
/// password logins must send with their session cookie.
///
/// The test drives the builds: it starts a queued item, appends log lines, finishes a build,
/// and waits (`until`) for hark to have seen a state, never for time to pass.
public final class TestJenkinsServer: @unchecked Sendable {
    /// What the server answered, for tests to wait on and check.
    public struct Served: Sendable {
        public var method: String
        public var path: String
        public var query: [String: String]
        public var status: Int
        public var textSize: Int?
        /// How long the log was when the answer was made (more than `textSize` when a
        /// partial line was held back).
        public var logLength: Int?
        /// A queue item's reason, as answered.
        public var why: String?
        public var moreData = false
        public var gzip = false
        public var crumb: String?
        public var form: [String: String] = [:]
    }

    public static let version = "2.462.3"
    public static let user = "ann"
    public static let fullName = "Ann Example"
    public static let password = "pw-secret"
    public static let token = "11f0c1d2e3a4b5c6d7e8f9a0b1c2d3e4f5"
    /// 2020-01-15 12:00 UTC, and an hour more for each build.
    public static let epoch: Double = 1_579_089_600_000

    public let http: TestHTTPServer
    let contextPath: String
    let lock = NSRecursiveLock()
    var jobs: [TestJenkinsJob] = []
    var queue: [TestJenkinsQueueItem] = []
    var nextQueueID = 40
    var sessions: [String: String] = [:]
    var served: [Served] = []
    private var waiters: [(condition: @Sendable ([Served]) -> Bool, gate: Gate)] = []

    /// When set, every poll of a queue item waits here first (to hold a build in the queue
    /// while the test detaches from it).
    public var queuePollGate: Gate? {
        get { lock.withLock { heldQueuePolls } }
        set { lock.withLock { heldQueuePolls = newValue } }
    }
    private var heldQueuePolls: Gate?

    /// The root URL to give hark: with a context path, as Jenkins behind a proxy often is.
    public var url: String { http.baseURL + contextPath + "/" }
    var root: String { http.baseURL + contextPath }

    public init(contextPath: String = "") throws {
        self.contextPath = contextPath
        let box = WeakBox<TestJenkinsServer>()
        http = try TestHTTPServer { request, response in box.value?.handle(request, response) }
        box.value = self
    }

    // MARK: Setting up

    public func addJob(_ name: String, description: String = "", parameters: [TestJenkinsParameter] = [],
                       disabled: Bool = false) {
        lock.withLock {
            jobs.append(TestJenkinsJob(path: name.split(separator: "/").map(String.init), description: description,
                                       parameters: parameters, disabled: disabled))
        }
    }

    /// A finished build with its whole log (a "Finished: RESULT" line is added).
    public func addBuild(_ job: String, result: String, log: String, duration: Double) {
        lock.withLock {
            guard let job = find(job) else { return }
            let build = TestJenkinsBuild(number: job.nextBuildNumber, queueID: nextQueueID, log: log + "Finished: \(result)\n",
                                         result: result, timestamp: Self.epoch + Double(job.nextBuildNumber) * 3_600_000,
                                         parameters: [:])
            build.duration = duration
            nextQueueID += 1
            job.nextBuildNumber += 1
            job.builds.append(build)
        }
    }

    // MARK: Driving builds

    /// The newest queue item's id.
    public var lastQueueID: Int? { lock.withLock { queue.last?.id } }

    /// The id the next queue item will get.
    public var nextQueueItem: Int { lock.withLock { nextQueueID } }

    public func setWhy(_ id: Int, _ why: String, blocked: Bool = false) {
        mutate { $0.updateQueue(id) { $0.why = why; $0.blocked = blocked } }
    }

    /// The queue item leaves the queue and its build starts; returns the build number.
    @discardableResult
    public func start(_ id: Int) -> Int {
        var number = 0
        mutate { server in
            guard let index = server.queue.firstIndex(where: { $0.id == id }), let job = server.find(server.queue[index].job) else { return }
            number = job.nextBuildNumber
            job.nextBuildNumber += 1
            job.builds.append(TestJenkinsBuild(number: number, queueID: id, log: "Started by user \(Self.fullName)\n", result: nil,
                                               timestamp: Self.epoch + Double(number) * 3_600_000,
                                               parameters: server.queue[index].parameters))
            server.queue[index].buildNumber = number
        }
        return number
    }

    /// A build started by someone else (a timer, another user), already running.
    @discardableResult
    public func startElsewhere(_ job: String) -> Int {
        let id: Int = lock.withLock {
            defer { nextQueueID += 1 }
            queue.append(TestJenkinsQueueItem(id: nextQueueID, job: job.split(separator: "/").map(String.init), why: nil,
                                              parameters: [:], since: Self.epoch))
            return nextQueueID
        }
        return start(id)
    }

    public func disable(_ job: String) { mutate { $0.find(job)?.disabled = true } }

    /// Someone cancels the item in Jenkins.
    public func cancel(_ id: Int) { mutate { $0.updateQueue(id) { $0.cancelled = true } } }

    /// Left items are forgotten after five minutes: the item's URL answers 404 from then on.
    public func expire(_ id: Int) { mutate { $0.updateQueue(id) { $0.expired = true } } }

    public func append(_ job: String, _ number: Int, _ text: String) {
        mutate { $0.find(job, number)?.log += Array(text.utf8) }
    }

    /// The build ends: "Finished: RESULT" is logged, as Jenkins does.
    public func finish(_ job: String, _ number: Int, _ result: String, duration: Double) {
        mutate { server in
            guard let build = server.find(job, number) else { return }
            build.log += Array("Finished: \(result)\n".utf8)
            build.result = result
            build.duration = duration
        }
    }

    /// The log file is replaced by a shorter one (rotated, or the build was replayed).
    public func replaceLog(_ job: String, _ number: Int, with text: String) {
        mutate { $0.find(job, number)?.log = Array(text.utf8) }
    }

    /// The parameters a build was started with.
    public func parameters(_ job: String, _ number: Int) -> [String: String] {
        lock.withLock { find(job, number)?.parameters ?? [:] }
    }

    // MARK: Observing

    public var answers: [Served] { lock.withLock { served } }

    /// Waits until what the server has answered satisfies `condition`; false after `seconds`
    /// (check it: a condition that never holds is a broken test).
    public func until(within seconds: Double = 90, _ condition: @escaping @Sendable ([Served]) -> Bool) async -> Bool {
        let gate = Gate()
        lock.withLock {
            if condition(served) { gate.open() } else { waiters.append((condition, gate)) }
        }
        return await gate.opened(within: seconds)
    }

    func mutate(_ change: (TestJenkinsServer) -> Void) {
        lock.withLock { change(self) }
        recheck()
    }

    func record(_ answer: Served) {
        lock.withLock { served.append(answer) }
        recheck()
    }

    private func recheck() {
        let ready: [Gate] = lock.withLock {
            let due = waiters.filter { $0.condition(served) }
            waiters.removeAll { waiter in due.contains { $0.gate === waiter.gate } }
            return due.map(\.gate)
        }
        for gate in ready { gate.open() }
    }

    // MARK: Lookups (lock held)

    func find(_ name: String) -> TestJenkinsJob? { find(name.split(separator: "/").map(String.init)) }
    func find(_ path: [String]) -> TestJenkinsJob? { jobs.first { $0.path == path } }
    func find(_ job: String, _ number: Int) -> TestJenkinsBuild? { find(job)?.builds.first { $0.number == number } }

    func updateQueue(_ id: Int, _ change: (inout TestJenkinsQueueItem) -> Void) {
        if let index = queue.firstIndex(where: { $0.id == id }) { change(&queue[index]) }
    }
}

/// Lets the server's handler reach the server without a retain cycle.
final class WeakBox<Value: AnyObject>: @unchecked Sendable {
    weak var value: Value?
}
