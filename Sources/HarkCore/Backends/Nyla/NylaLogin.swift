import FoundationEssentials
import Glibc

/// A local login to a gateway: its cookies, the CSRF token chosen for it, and who it is.
public struct NylaLogin: Sendable, Equatable {
    public var gateway: String
    public var csrf: String
    public var user: String?
    public var jar: CookieJar
    /// True once the gateway accepted the password; a login in progress is not saved.
    public var established: Bool

    public init(gateway: String, csrf: String = NylaWire.newCSRFToken(), user: String? = nil,
                jar: CookieJar = CookieJar(), established: Bool = false) {
        self.gateway = gateway
        self.csrf = csrf
        self.user = user
        self.jar = jar
        self.established = established
    }
}

/// Where a session's login is kept between runs: a file of its own under the data folder,
/// created with mode 0600 in a 0700 folder and replaced atomically; never the history DB.
public struct NylaLoginFile: Sendable {
    public let path: String

    public init(paths: Paths, session: String) {
        path = paths.dataDirectory + "/nyla/" + session + ".login"
    }

    /// The saved login, when it is for this gateway.
    public func load(gateway: String) -> NylaLogin? {
        guard let data = FileManager.default.contents(atPath: path), let json = try? JSON.parse(Array(data)),
              json["gateway"]?.string == gateway, let csrf = json["csrf"]?.string else { return nil }
        let jar = CookieJar(json: json["cookies"] ?? [])
        guard !jar.isEmpty else { return nil }
        return NylaLogin(gateway: gateway, csrf: csrf, user: json["user"]?.string, jar: jar, established: true)
    }

    public func save(_ login: NylaLogin) throws {
        let folder = path.deletingLastPathComponent
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        var object: [String: JSON] = ["gateway": .string(login.gateway), "csrf": .string(login.csrf),
                                      "cookies": login.jar.json]
        if let user = login.user { object["user"] = .string(user) }
        let bytes = Array((JSON.object(object).encoded(pretty: true) + "\n").utf8)
        let temporary = path + ".tmp-\(getpid())"
        unlink(temporary)
        // Created private: no moment in which another user could read the cookies.
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw HarkError.io("cannot write \(path): \(String(cString: strerror(errno)))") }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw HarkError.io("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    public func delete() {
        unlink(path)
    }
}
