import Foundation
import HarkCore

/// One request and its answer: the answer is recorded just before it is sent, so a test that
/// sees it counted knows hark is about to read it.
final class JenkinsExchange {
    let request: TestRequest
    let response: ResponseWriter
    let server: TestJenkinsServer
    var answer: TestJenkinsServer.Served

    init(_ request: TestRequest, _ response: ResponseWriter, server: TestJenkinsServer) {
        self.request = request
        self.response = response
        self.server = server
        answer = .init(method: request.method, path: request.path, query: request.query, status: 200,
                       crumb: request.header("jenkins-crumb"), form: TestJenkinsServer.form(request))
    }

    func send(_ status: Int, _ headers: [(String, String)], _ body: [UInt8]) {
        answer.status = status
        server.record(answer)
        response.send(status: status, headers: [("X-Jenkins", TestJenkinsServer.version)] + headers, body: body)
    }

    /// Jetty's error page, which Jenkins serves for sendError.
    func page(_ status: Int, _ message: String) {
        send(status, [("Content-Type", "text/html;charset=iso-8859-1")],
             Array(TestJenkinsServer.errorPage(status, message, uri: request.path).utf8))
    }

    func json(_ value: JSON, headers: [(String, String)] = []) {
        send(200, [("Content-Type", "application/json;charset=utf-8")] + headers, Array(value.encoded().utf8))
    }

    func empty(_ status: Int, headers: [(String, String)] = []) { send(status, headers, []) }

    /// Jenkins' actions that change something answer 405 to a GET.
    func requirePost() -> Bool {
        if request.method == "POST" { return true }
        page(405, "Method Not Allowed")
        return false
    }
}

/// Request handling of the loopback Jenkins: authentication and crumbs first, then each
/// endpoint's answer.
extension TestJenkinsServer {
    func handle(_ request: TestRequest, _ response: ResponseWriter) {
        let exchange = JenkinsExchange(request, response, server: self)
        guard request.path.hasPrefix(contextPath + "/") else { return exchange.page(404, "Not Found") }
        guard let (user, byPassword) = authenticate(request) else {
            if request.header("authorization") == nil {
                return exchange.page(403, "anonymous is missing the Overall/Read permission")
            }
            return exchange.page(401, "Invalid password/token for user: \(Self.basicCredentials(request)?.user ?? "?")")
        }
        // Password logins must send a crumb issued to their session with every POST;
        // API tokens are exempt (ApiCrumbExclusion).
        if request.method == "POST", byPassword, !crumbIsValid(request, user: user) {
            return exchange.page(403, "No valid crumb was included in the request")
        }
        let segments = request.path.dropFirst(contextPath.count).split(separator: "/")
            .map { String($0).removingPercentEncoding ?? String($0) }
        switch segments.first {
        case "job": answerJob(Array(segments), exchange)
        case "queue": answerQueue(Array(segments.dropFirst()), exchange)
        default: answerServer(segments, user: user, exchange)
        }
    }

    private func answerServer(_ segments: [String], user: String, _ exchange: JenkinsExchange) {
        switch segments {
        case ["api", "json"]:
            exchange.json(["_class": "hudson.model.Hudson", "mode": "NORMAL", "jobs": .array(lock.withLock { tree(under: []) })])
        case ["whoAmI", "api", "json"]:
            exchange.json(["_class": "hudson.security.WhoAmI", "anonymous": false, "authenticated": true,
                           "authorities": ["authenticated"], "name": .string(user), "toString": .string("user \(user)")])
        case ["crumbIssuer", "api", "json"]:
            let (session, isNew) = lock.withLock { () -> (String, Bool) in
                if let existing = Self.sessionID(exchange.request), sessions[existing] == user { return (existing, false) }
                let made = "node0" + String(UUID().uuidString.prefix(8)).lowercased()
                sessions[made] = user
                return (made, true)
            }
            exchange.json(["_class": "hudson.security.csrf.DefaultCrumbIssuer", "crumb": .string(Self.crumb(for: session)),
                           "crumbRequestField": "Jenkins-Crumb"],
                          headers: isNew ? [("Set-Cookie", "\(Self.cookieName)=\(session); Path=/; HttpOnly")] : [])
        default:
            exchange.page(404, "Not Found")
        }
    }

    private func answerQueue(_ segments: [String], _ exchange: JenkinsExchange) {
        switch segments {
        case ["api", "json"]:
            let items = lock.withLock {
                queue.filter { !$0.hasLeft && !$0.expired }.map { $0.json(root: root, jobName: $0.job.last ?? "") }
            }
            exchange.json(["_class": "hudson.model.Queue", "discoverableItems": [], "items": .array(items)])
        case ["cancelItem"]:
            guard exchange.requirePost() else { return }
            let id = Int(exchange.request.query["id"] ?? "") ?? -1
            if lock.withLock({ () -> Bool in defer { startBeforeCancel = false }; return startBeforeCancel }) { start(id) }
            // core/src/main/java/hudson/model/Queue.java, doCancelItem: getItem(id) finds left
            // items too (`leftItems.getIfPresent(id)`), which cancel() cannot take out: `return
            // HttpResponses.error(SC_INTERNAL_SERVER_ERROR, "Could not cancel run for id " + id)`.
            let outcome: Int = lock.withLock {
                guard let index = queue.firstIndex(where: { $0.id == id && !$0.expired }) else { return 404 }
                if queue[index].hasLeft { return 500 }
                queue[index].cancelled = true
                return 204
            }
            switch outcome {
            case 204: exchange.empty(204)
            case 500: exchange.page(500, "Could not cancel run for id \(id)")
            default: exchange.page(404, "Provided id (\(id)) not found")
            }
        case let item where item.count == 4 && item[0] == "item" && item[2...] == ["api", "json"]:
            guard let id = Int(item[1]) else { return exchange.page(404, "Not Found") }
            queuePollGate?.wait()
            let json: JSON? = lock.withLock {
                guard let index = queue.firstIndex(where: { $0.id == id && !$0.expired }) else { return nil }
                queue[index].polls += 1
                if queue[index].why?.hasPrefix("In the quiet period") == true {
                    queue[index].why = "In the quiet period. Expires in \(max(1, 6 - queue[index].polls)) sec"
                }
                exchange.answer.why = queue[index].hasLeft ? nil : queue[index].why
                return queue[index].json(root: root, jobName: queue[index].job.last ?? "")
            }
            json.map { exchange.json($0) } ?? exchange.page(404, "Not Found")
        default:
            exchange.page(404, "Not Found")
        }
    }

    /// `/job/A/job/B/…`: the job, a trigger, or one of its builds.
    private func answerJob(_ segments: [String], _ exchange: JenkinsExchange) {
        var path: [String] = []
        var rest = segments[...]
        while rest.count >= 2, rest.first == "job" {
            path.append(rest[rest.startIndex + 1])
            rest = rest.dropFirst(2)
        }
        let action = Array(rest)
        guard let job = lock.withLock({ find(path) }) else {
            guard let container = lock.withLock({ containerJSON(path) }) else { return exchange.page(404, "Not Found") }
            switch action {
            case ["api", "json"]: return exchange.json(container)
            // cloudbees-folder ComputedFolder.doBuild: "building" a multibranch project only
            // schedules a scan for branches (`scheduleBuild2(…)`, then forwardToPreviousPage).
            case ["build"] where exchange.request.method == "POST" && lock.withLock({ multibranchProjects.contains(path) }):
                return exchange.empty(302, headers: [("Location", root + "/")])
            default: return exchange.page(404, "Not Found")
            }
        }
        switch action {
        case ["api", "json"]:
            exchange.json(lock.withLock { job.json(root: root, inQueue: queue.contains { $0.job == path && !$0.hasLeft }) })
        case ["build"], ["buildWithParameters"]:
            trigger(job, withParameters: action == ["buildWithParameters"], exchange)
        default:
            let build: TestJenkinsBuild? = lock.withLock {
                guard let reference = action.first else { return nil }
                if reference == "lastBuild" { return job.builds.last }
                return Int(reference).flatMap { number in job.builds.first { $0.number == number } }
            }
            guard let build else { return exchange.page(404, "Not Found") }
            answerBuild(build, of: job, Array(action.dropFirst()), exchange)
        }
    }

    private func trigger(_ job: TestJenkinsJob, withParameters: Bool, _ exchange: JenkinsExchange) {
        guard exchange.requirePost() else { return }
        if let permission = job.deniedPermission {
            // core/src/main/java/hudson/security/AccessDeniedException3.java, reportAsHeaders:
            // `X-You-Are-Authenticated-As`, `X-Required-Permission: permission.getId()` and each
            // `X-Permission-Implied-By`; the body is the /accessDenied page, with the message
            // "{0} is missing the {1} permission" (hudson/security/Messages.properties).
            return exchange.send(403, [("Content-Type", "text/html;charset=utf-8"), ("X-You-Are-Authenticated-As", Self.user),
                                       ("X-You-Are-In-Group-Disabled", "JENKINS-39402: use -Dhudson.security.AccessDeniedException2.REPORT_GROUP_HEADERS=true or use /whoAmI to diagnose"),
                                       ("X-Required-Permission", permission),
                                       ("X-Permission-Implied-By", "hudson.model.Hudson.Administer")],
                                 Array(("<html><head><title>Access Denied [Jenkins]</title></head><body><h1>Access Denied</h1>"
                                        + "<p>\(Self.user) is missing the Job/Build permission</p></body></html>").utf8))
        }
        if job.disabled { return exchange.page(409, "\(job.fullName) is not buildable") }
        let parameterized = !job.parameters.isEmpty
        if !withParameters && parameterized { return exchange.page(400, "\(job.fullName) is parameterized; use buildWithParameters") }
        if withParameters && !parameterized { return exchange.page(500, "This build is not parameterized!") }
        let given = exchange.request.query.merging(exchange.answer.form) { _, body in body }
        for parameter in job.parameters where !parameter.choices.isEmpty {
            if let value = given[parameter.name], !parameter.choices.contains(value) {
                return exchange.page(400, "Illegal choice for parameter \(parameter.name): \(value)")
            }
        }
        let id: Int = lock.withLock {
            defer { nextQueueID += 1 }
            queue.append(TestJenkinsQueueItem(id: nextQueueID, job: job.path, why: "In the quiet period. Expires in 5 sec",
                                              parameters: given, since: Self.epoch))
            return nextQueueID
        }
        exchange.empty(201, headers: [("Location", root + "/queue/item/\(id)/")])
    }

    private func answerBuild(_ build: TestJenkinsBuild, of job: TestJenkinsJob, _ action: [String], _ exchange: JenkinsExchange) {
        let buildURL = root + TestJenkinsServer.jobURLPath(job.path) + "/\(build.number)/"
        switch action {
        case ["api", "json"]:
            exchange.json(lock.withLock { build.json(jobURL: root + TestJenkinsServer.jobURLPath(job.path) + "/") })
        case ["stop"]:
            guard exchange.requirePost() else { return }
            mutate { _ in
                guard build.building else { return }
                build.log += Array("Aborted by \(Self.fullName)\nFinished: ABORTED\n".utf8)
                build.result = "ABORTED"
                build.duration = 3100
            }
            exchange.empty(302, headers: [("Location", buildURL)])
        case ["logText", "progressiveText"]:
            progressiveText(build, exchange)
        case ["testReport", "api", "json"]:
            testReport(build, exchange)
        case let path where path.first == "artifact" && path.count > 1:
            let wanted = path.dropFirst().joined(separator: "/")
            guard let artifact = lock.withLock({ build.artifacts.first { $0.path == wanted } }) else {
                return exchange.page(404, "Not Found")
            }
            exchange.send(200, [("Content-Type", "application/octet-stream")], artifact.bytes)
        case let path where path.first == "wfapi" || path.first == "input":
            // Actions of a WorkflowRun only: a freestyle build has no such URL.
            guard lock.withLock({ build.pipeline }) else { return exchange.page(404, "Not Found") }
            path.first == "wfapi" ? answerStageView(build, of: job, Array(path.dropFirst()), exchange)
                                  : answerInput(build, Array(path.dropFirst()), exchange)
        default:
            exchange.page(404, "Not Found")
        }
    }

    /// stapler's LargeText.doProgressText. The log goes out as it is stored, console notes
    /// included: jenkinsci/jenkins core/src/main/java/hudson/console/AnnotatedLargeText.java
    /// has `delegateToWriteLogTo(req, rsp) { return isHtml(req); }`, so a plain-text request is
    /// not written through writeLogTo and its PlainTextConsoleOutputStream, which strips them.
    private func progressiveText(_ build: TestJenkinsBuild, _ exchange: JenkinsExchange) {
        let requested = Int(exchange.request.query["start"] ?? "0") ?? 0
        let (text, end, more, length): ([UInt8], Int, Bool, Int) = lock.withLock {
            let log = build.log
            let start = log.count < requested ? 0 : requested  // "text rolled over"
            var end = log.count
            if build.building {
                // While the build runs, only whole lines are sent.
                end = log[start...].lastIndex(of: 0x0A).map { $0 + 1 } ?? start
            }
            return (Array(log[start..<end]), end, build.building, log.count)
        }
        var body = Self.crlf(text)
        var headers = [("Content-Type", "text/plain;charset=UTF-8"), ("X-Text-Size", String(end))]
        if more { headers.append(("X-More-Data", "true")) }
        exchange.answer.textSize = end
        exchange.answer.logLength = length
        exchange.answer.moreData = more
        // Jenkins compresses answers over 4 KB for clients that accept gzip.
        if text.count > 4096, exchange.request.header("accept-encoding")?.contains("gzip") == true,
           let compressed = try? Subprocess.run(["gzip", "-c"], streams: .captured(input: Data(body))), compressed.status == 0 {
            body = Array(compressed.stdout)
            headers.append(("Content-Encoding", "gzip"))
            exchange.answer.gzip = true
        }
        exchange.send(200, headers, body)
    }
}
