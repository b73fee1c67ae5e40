import FoundationEssentials
import Glibc

/// What a Nyla session knows at run time: its login, the instance it talks to, the lists it
/// last fetched (for Tab, which must not wait for the network), and which workflow each
/// running reply belongs to (for stop).
///
/// A backend is rebuilt whenever the config is reloaded (`/instance` writes the config), and a
/// reply may still be streaming through the old one; so this state lives beside the backends,
/// one per session and home, and every backend of that session shares it.
final class NylaSessionState: @unchecked Sendable {
    struct Values {
        var login: NylaLogin?
        /// The CSRF token when a bearer token is used instead of a login.
        var tokenCSRF = NylaWire.newCSRFToken()
        var mandates: [NylaMandate]?
        /// The instance in use, resolved from the `instance` setting or chosen on the fly.
        var instance: NylaInstance?
        var folders: [NylaFolder] = []
        var files: [NylaFile] = []
        var edits: [NylaPendingEdit] = []
        var editCounts: [String: Int] = [:]
        var prompts: [NylaPrompt] = []
        /// By local thread id: the instance and workflow of its latest reply.
        var replies: [Int64: (instance: NylaInstance, workflow: String?)] = [:]
    }

    private let lock = Lock()
    private var values = Values()

    func read<T>(_ body: (Values) -> T) -> T { lock.withLock { body(values) } }

    @discardableResult
    func update<T>(_ body: (inout Values) -> T) -> T { lock.withLock { body(&values) } }

    // MARK: One per session and home

    private nonisolated(unsafe) static var all: [String: NylaSessionState] = [:]
    private static let registryLock = Lock()

    static func shared(paths: Paths, session: String, gateway: String) -> NylaSessionState {
        let key = [paths.dataDirectory, session, gateway].joined(separator: "\u{0}")
        return registryLock.withLock {
            if let existing = all[key] { return existing }
            let made = NylaSessionState()
            all[key] = made
            return made
        }
    }
}
