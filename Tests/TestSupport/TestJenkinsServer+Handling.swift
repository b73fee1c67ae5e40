import Foundation
import HarkCore

/// Request handling of the loopback Jenkins: authentication, crumbs, routing, and each
/// endpoint's answer.
extension TestJenkinsServer {
    static let cookieName = "JSESSIONID.5b1f0c2a"

    func handle(_ request: TestRequest, _ response: ResponseWriter) {
        var answer = Served(method: request.method, path: request.path, query: request.query, status: 200,
                            crumb: request.header("jenkins-crumb"), form: Self.form(request))
        let common = [("X-Jenkins", Self.version), ("X-Content-Type-Options", "nosniff")]
        // Recorded before it is sent, so a test that sees it counted knows hark will read it.
        func send(_ status: Int, _ headers: [(String, String)], _ body: [UInt8]) {
            answer.status = status
            record(answer)
            response.send(status: status, headers: common + headers, body: body)
        }
        func page(_ status: Int, _ message: String, headers: [(String, String)] = []) {
            send(status, headers + [("Content-Type", "text/html;charset=iso-8859-1")],
                 Array(Self.errorPage(status, message, uri: request.path).utf8))
        }
        func json(_ value: JSON, status: Int = 200, headers: [(String, String)] = []) {
            send(status, [("Content-Type", "application/json;charset=utf-8")] + headers, Array(value.encoded().utf8))
        }
        func empty(_ status: Int, headers: [(String, String)] = []) {
            send(status, headers, [])
        }

        guard request.path.hasPrefix(contextPath + "/") else { return page(404, "Not Found") }
        guard let (user, byPassword) = authenticate(request) else {
            if request.header("authorization") == nil { return page(403, "anonymous is missing the Overall/Read permission") }
            return page(401, "Invalid password/token for user: \(Self.basicUser(request) ?? "?")")
        }
        let segments = request.path.dropFirst(contextPath.count).split(separator: "/")
            .map { String($0).removingPercentEncoding ?? String($0) }

        // Password logins must send a crumb issued to their session with every POST;
        // API tokens are exempt (ApiCrumbExclusion).
        if request.method == "POST", byPassword, !crumbIsValid(request, user: user) {
            return page(403, "No valid crumb was included in the request")
        }

        switch segments {
        case ["api", "json"]:
            return json(["_class": "hudson.model.Hudson", "mode": "NORMAL", "jobs": .array(lock.withLock { tree(under: []) })])
        case ["whoAmI", "api", "json"]:
            return json(["_class": "hudson.security.WhoAmI", "anonymous": false, "authenticated": true,
                         "authorities": ["authenticated"], "name": .string(user), "toString": .string("user \(user)")])
        case ["crumbIssuer", "api", "json"]:
            let (session, isNew) = lock.withLock { () -> (String, Bool) in
                if let existing = Self.sessionID(request), sessions[existing] == user { return (existing, false) }
                let made = "node0" + String(UUID().uuidString.prefix(8)).lowercased()
                sessions[made] = user
                return (made, true)
            }
            let cookie = isNew ? [("Set-Cookie", "\(Self.cookieName)=\(session); Path=/; HttpOnly")] : []
            return json(["_class": "hudson.security.csrf.DefaultCrumbIssuer", "crumb": .string(Self.crumb(for: session)),
                         "crumbRequestField": "Jenkins-Crumb"], headers: cookie)
        case ["queue", "api", "json"]:
            let items = lock.withLock {
                queue.filter { !$0.hasLeft && !$0.expired }.map { $0.json(root: root, jobName: $0.job.last ?? "") }
            }
            return json(["_class": "hudson.model.Queue", "discoverableItems": [], "items": .array(items)])
        case ["queue", "cancelItem"]:
            guard request.method == "POST" else { return page(405, "Method Not Allowed") }
            let id = Int(request.query["id"] ?? "") ?? -1
            let cancelled: Bool = lock.withLock {
                guard let index = queue.firstIndex(where: { $0.id == id && !$0.hasLeft }) else { return false }
                queue[index].cancelled = true
                return true
            }
            return cancelled ? empty(204) : page(404, "Provided id (\(id)) not found")
        default:
            break
        }
        if segments.count == 5, segments[0] == "queue", segments[1] == "item", let id = Int(segments[2]),
           segments[3...] == ["api", "json"] {
            queuePollGate?.wait()
            let item: JSON? = lock.withLock {
                guard let index = queue.firstIndex(where: { $0.id == id && !$0.expired }) else { return nil }
                queue[index].polls += 1
                if queue[index].why?.hasPrefix("In the quiet period") == true {
                    queue[index].why = "In the quiet period. Expires in \(max(1, 6 - queue[index].polls)) sec"
                }
                answer.why = queue[index].hasLeft ? nil : queue[index].why
                return queue[index].json(root: root, jobName: queue[index].job.last ?? "")
            }
            return item.map { json($0) } ?? page(404, "Not Found")
        }
        guard segments.first == "job" else { return page(404, "Not Found") }
        var path: [String] = []
        var rest = segments[...]
        while rest.count >= 2, rest.first == "job" {
            path.append(rest[rest.startIndex + 1])
            rest = rest.dropFirst(2)
        }
        guard let job = lock.withLock({ find(path) }) else { return page(404, "Not Found") }
        let jobURL = root + path.map { "/job/" + $0 }.joined() + "/"
        let action = Array(rest)
        switch action {
        case ["api", "json"]:
            return json(lock.withLock { job.json(root: root, inQueue: queue.contains { $0.job == path && !$0.hasLeft }) })
        case ["build"], ["buildWithParameters"]:
            guard request.method == "POST" else { return page(405, "Method Not Allowed") }
            if job.disabled { return page(409, "\(job.fullName) is not buildable") }
            let parameterized = !job.parameters.isEmpty
            if action == ["build"] && parameterized { return page(400, "\(job.fullName) is parameterized; use buildWithParameters") }
            if action == ["buildWithParameters"] && !parameterized { return page(500, "This build is not parameterized!") }
            let given = request.query.merging(answer.form) { _, body in body }
            for parameter in job.parameters where !parameter.choices.isEmpty {
                if let value = given[parameter.name], !parameter.choices.contains(value) {
                    return page(400, "Illegal choice for parameter \(parameter.name): \(value)")
                }
            }
            let id: Int = lock.withLock {
                defer { nextQueueID += 1 }
                queue.append(TestJenkinsQueueItem(id: nextQueueID, job: path, why: "In the quiet period. Expires in 5 sec",
                                                  parameters: given, since: Self.epoch))
                return nextQueueID
            }
            return empty(201, headers: [("Location", root + "/queue/item/\(id)/")])
        default:
            break
        }
        guard action.count >= 2, let build = lock.withLock({ () -> TestJenkinsBuild? in
            if action[0] == "lastBuild" { return job.builds.last }
            return Int(action[0]).flatMap { number in job.builds.first { $0.number == number } }
        }) else { return page(404, "Not Found") }
        switch Array(action.dropFirst()) {
        case ["api", "json"]:
            return json(lock.withLock { build.json(jobURL: jobURL) })
        case ["stop"]:
            guard request.method == "POST" else { return page(405, "Method Not Allowed") }
            mutate { _ in
                guard build.building else { return }
                build.log += Array("Aborted by \(Self.fullName)\nFinished: ABORTED\n".utf8)
                build.result = "ABORTED"
                build.duration = 3100
            }
            return empty(302, headers: [("Location", jobURL + "\(build.number)/")])
        case ["logText", "progressiveText"]:
            let requested = Int(request.query["start"] ?? "0") ?? 0
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
            answer.textSize = end
            answer.logLength = length
            answer.moreData = more
            // Jenkins compresses answers over 4 KB for clients that accept gzip.
            if text.count > 4096, request.header("accept-encoding")?.contains("gzip") == true,
               let compressed = try? Subprocess.run(["gzip", "-c"], streams: .captured(input: Data(body))), compressed.status == 0 {
                body = Array(compressed.stdout)
                headers.append(("Content-Encoding", "gzip"))
                answer.gzip = true
            }
            return send(200, headers, body)
        default:
            return page(404, "Not Found")
        }
    }

    // MARK: Auth and crumbs

    static func basicUser(_ request: TestRequest) -> String? {
        basicCredentials(request)?.user
    }

    static func basicCredentials(_ request: TestRequest) -> (user: String, secret: String)? {
        guard let header = request.header("authorization"), header.hasPrefix("Basic "),
              let data = Data(base64Encoded: String(header.dropFirst(6))) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard let colon = text.firstIndex(of: ":") else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// The user, and whether they logged in with their password (rather than an API token).
    func authenticate(_ request: TestRequest) -> (String, Bool)? {
        guard let (user, secret) = Self.basicCredentials(request), user == Self.user else { return nil }
        if secret == Self.token { return (user, false) }
        if secret == Self.password { return (user, true) }
        return nil
    }

    static func sessionID(_ request: TestRequest) -> String? {
        for cookie in (request.header("cookie") ?? "").split(separator: ";") {
            let pair = cookie.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2, pair[0] == cookieName { return pair[1] }
        }
        return nil
    }

    static func crumb(for session: String) -> String { "c" + String(session.reversed()) + "0ff1ce" }

    func crumbIsValid(_ request: TestRequest, user: String) -> Bool {
        guard let session = Self.sessionID(request), lock.withLock({ sessions[session] }) == user else { return false }
        return request.header("jenkins-crumb") == Self.crumb(for: session)
    }

    // MARK: Shapes

    /// The `jobs` of a folder (or of the root), folders holding their own `jobs`.
    func tree(under prefix: [String]) -> [JSON] {
        var seen: [String] = []
        var items: [JSON] = []
        for job in jobs where job.path.count > prefix.count && Array(job.path.prefix(prefix.count)) == prefix {
            let name = job.path[prefix.count]
            guard !seen.contains(name) else { continue }
            seen.append(name)
            if job.path.count == prefix.count + 1 {
                items.append(["_class": "hudson.model.FreeStyleProject", "name": .string(name), "color": .string(job.color)])
            } else {
                items.append(["_class": "com.cloudbees.hudson.plugins.folder.Folder", "name": .string(name),
                              "jobs": .array(tree(under: prefix + [name]))])
            }
        }
        return items
    }

    /// stapler's LineEndNormalizingWriter: every lone LF goes out as CR LF.
    static func crlf(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == 0x0A && previous != 0x0D { out.append(0x0D) }
            out.append(byte)
            previous = byte
        }
        return out
    }

    static func form(_ request: TestRequest) -> [String: String] {
        guard request.header("content-type")?.hasPrefix("application/x-www-form-urlencoded") == true else { return [:] }
        var fields: [String: String] = [:]
        for pair in request.text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { part in
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
            }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    /// Jetty's error page, which Jenkins serves for sendError.
    static func errorPage(_ status: Int, _ message: String, uri: String) -> String {
        """
        <html>
        <head>
        <meta http-equiv="Content-Type" content="text/html;charset=ISO-8859-1"/>
        <title>Error \(status) \(message)</title>
        </head>
        <body><h2>HTTP ERROR \(status) \(message)</h2>
        <table>
        <tr><th>URI:</th><td>\(uri)</td></tr>
        <tr><th>STATUS:</th><td>\(status)</td></tr>
        <tr><th>MESSAGE:</th><td>\(message)</td></tr>
        </table>
        </body>
        </html>

        """
    }
}
