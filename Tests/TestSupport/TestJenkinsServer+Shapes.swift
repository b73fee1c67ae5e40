import Foundation
import HarkCore

/// How the loopback Jenkins checks credentials and crumbs, and shapes what it sends.
extension TestJenkinsServer {
    static let cookieName = "JSESSIONID.5b1f0c2a"

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
                items.append(["_class": .string(job.className), "name": .string(name), "color": .string(job.color)])
            } else {
                items.append(["_class": .string(containerClass(prefix + [name])), "name": .string(name),
                              "jobs": .array(tree(under: prefix + [name]))])
            }
        }
        return items
    }

    /// A folder's `_class`: cloudbees-folder's Folder, or workflow-multibranch's
    /// WorkflowMultiBranchProject (a branch-api MultiBranchProject).
    func containerClass(_ path: [String]) -> String {
        multibranchProjects.contains(path) ? "org.jenkinsci.plugins.workflow.multibranch.WorkflowMultiBranchProject"
            : "com.cloudbees.hudson.plugins.folder.Folder"
    }

    /// A folder or multibranch project as its api/json exports it: its items under `jobs`.
    func containerJSON(_ path: [String]) -> JSON? {
        let items = tree(under: path)
        guard !items.isEmpty else { return nil }
        return ["_class": .string(containerClass(path)), "name": .string(path.last ?? ""),
                "fullName": .string(path.joined(separator: "/")), "description": nil,
                "url": .string(root + Self.jobURLPath(path) + "/"), "jobs": .array(items)]
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
