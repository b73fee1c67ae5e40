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
        /// A Pipeline's stages as wfapi/describe answered them: `Build:SUCCESS,Test:IN_PROGRESS`.
        public var stages: String?
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
    /// Paths of multibranch projects (the other folders are plain folders).
    var multibranchProjects: Set<[String]> = []
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

    /// A multibranch Pipeline project with one Pipeline job per branch. Each branch job is
    /// named by branch-api's NameEncoder (jenkinsci/branch-api-plugin
    /// src/main/java/jenkins/branch/NameEncoder.java: `case '/': buf.append("%2F")`), so
    /// `feature/x` is the job `feature%2Fx`, at the URL `…/job/feature%252Fx/`.
    public func addMultibranch(_ name: String, branches: [String]) {
        lock.withLock {
            let project = name.split(separator: "/").map(String.init)
            multibranchProjects.insert(project)
            for branch in branches {
                let job = TestJenkinsJob(path: project + [Self.nameEncoded(branch)], description: "", parameters: [], disabled: false)
                job.pipeline = true
                jobs.append(job)
            }
        }
    }

    /// A Pipeline job (WorkflowJob): its builds answer wfapi and input steps.
    public func addPipeline(_ name: String, parameters: [TestJenkinsParameter] = []) {
        addJob(name, parameters: parameters)
        mutate { $0.find(name)?.pipeline = true }
    }

    /// An item whose ball colour is fixed, as a plugin's item that reports BallColor.GREY
    /// (core/src/main/java/hudson/model/BallColor.java: `GREY("grey", …)`; exported by
    /// `toString()`, `name().toLowerCase()`).
    public func setColor(_ job: String, _ color: String) { mutate { $0.find(job)?.fixedColor = color } }

    /// Building the job needs a permission the user lacks (`hudson.model.Item.Build`).
    public func denyBuild(_ job: String, permission: String = "hudson.model.Item.Build") {
        mutate { $0.find(job)?.deniedPermission = permission }
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
            let build = TestJenkinsBuild(number: number, queueID: id, log: "Started by user \(Self.fullName)\n", result: nil,
                                         timestamp: Self.epoch + Double(number) * 3_600_000, parameters: server.queue[index].parameters)
            build.pipeline = job.pipeline
            job.builds.append(build)
            server.queue[index].buildNumber = number
        }
        return number
    }

    /// A build someone else asked for, waiting in the queue; returns the queue item's id.
    @discardableResult
    public func enqueue(_ job: String) -> Int {
        mutate { server in
            server.queue.append(TestJenkinsQueueItem(id: server.nextQueueID, job: job.split(separator: "/").map(String.init),
                                                     why: "Waiting for next available executor", parameters: [:], since: Self.epoch))
            server.nextQueueID += 1
        }
        return lock.withLock { nextQueueID - 1 }
    }

    /// The next cancel of a queue item arrives just after an executor took the item: Jenkins
    /// then holds it as a left item, which cannot be cancelled.
    public var startsBeforeCancel: Bool {
        get { lock.withLock { startBeforeCancel } }
        set { lock.withLock { startBeforeCancel = newValue } }
    }
    var startBeforeCancel = false

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

    // MARK: Pipelines, artifacts, tests

    public func setStages(_ job: String, _ number: Int, _ stages: [TestJenkinsStage]) {
        mutate { $0.find(job, number)?.stages = stages }
    }

    /// The Pipeline reaches an input step: logged as InputStepExecution.start logs it
    /// (jenkinsci/pipeline-input-step-plugin src/main/java/org/jenkinsci/plugins/workflow/
    /// support/steps/input/InputStepExecution.java: `printf("%s%n%s or %s%n", input.getMessage(),
    /// POSTHyperlinkNote.encodeTo(thisUrl + "proceedEmpty", input.getOk()),
    /// POSTHyperlinkNote.encodeTo(thisUrl + "abort", input.getCancel()))`, the links console
    /// notes), and pending until /proceed, /proceedEmpty or /abort answers it. The id is the
    /// step's (an MD5 of its message, capitalised, in the plugin).
    public func pauseForInput(_ job: String, _ number: Int, message: String, ok: String = "Proceed",
                              parameters: [TestJenkinsParameter] = []) {
        mutate { server in
            guard let build = server.find(job, number) else { return }
            let id = "Ef95dd500ae6ed3b27b89fb852296d1" + String(build.inputs.count)
            build.inputs.append(TestJenkinsInput(id: id, message: message, ok: ok, parameters: parameters))
            if parameters.isEmpty {
                build.log += Array("\(message)\n\(Self.consoleNote())\(ok)\(Self.consoleNote()) or \(Self.consoleNote())Abort\(Self.consoleNote())\n".utf8)
            } else {
                build.log += Array("\(Self.consoleNote())Input requested\(Self.consoleNote())\n".utf8)
            }
            if let index = build.stages.lastIndex(where: { $0.status == "IN_PROGRESS" }) {
                build.stages[index].status = "PAUSED_PENDING_INPUT"
            }
        }
    }

    /// What each proceed of the build's input steps sent (its form fields).
    public func inputAnswers(_ job: String, _ number: Int) -> [[String: String]] {
        lock.withLock { find(job, number)?.inputAnswers ?? [] }
    }

    public func pendingInputs(_ job: String, _ number: Int) -> Int { lock.withLock { find(job, number)?.inputs.count ?? 0 } }

    public func archive(_ job: String, _ number: Int, _ path: String, _ bytes: [UInt8]) {
        mutate { $0.find(job, number)?.artifacts.append((path, bytes)) }
    }

    public func recordTests(_ job: String, _ number: Int, _ cases: [TestJenkinsCase]) {
        mutate { $0.find(job, number)?.tests = cases }
    }

    /// A console note as ConsoleNote.encode writes it (jenkinsci/jenkins
    /// core/src/main/java/hudson/console/ConsoleNote.java: `PREAMBLE_STR = "\u001B[8mha:"`,
    /// the base64 of the MAC and the serialized note, `POSTAMBLE_STR = "\u001B[0m"`).
    public static func consoleNote() -> String {
        "\u{1B}[8mha:////4PKu+aTJ3pS9vVAlCS2rNTIbKvo2aN8Pnx2tk4J9Gm3YAAAAoh+LCAAAAAAAAP9tjTEOwjAQBM8BClpKHuFItIg6VEgUPCAkJ"
            + "sRNRZj2waBEs6bPtGXAqvQCnpWGZ9T1bAzI1C7vq39NvJ5zDzmGqmTLvBHfGklOqZyQ1WFg8qE0tKUvsa/P4ecuBN5p8AX8P4pM5AAAA\u{1B}[0m"
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

    /// NameEncoder.encode for the characters a branch name holds.
    static func nameEncoded(_ name: String) -> String {
        var out = ""
        for character in name {
            switch character {
            case "%": out += "%25"
            case "/": out += "%2F"
            case "#": out += "%23"
            case "?": out += "%3F"
            default: out.append(character)
            }
        }
        return out
    }

    /// `/job/A/job/B`, each name as Util.rawEncode puts it in a URL (so `%2F` is `%252F`).
    static func jobURLPath(_ path: [String]) -> String {
        path.map { "/job/" + ($0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "%/"))) ?? $0) }
            .joined()
    }

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
