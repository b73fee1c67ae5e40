/// The built-in offline session. For now its messages are notes to self: stored and
/// searchable, with no reply. Nothing here touches the network.
public final class LocalBackend: Backend, BackendKind {
    public static let name = "local"
    public static let summary = "built in and offline: notes to self"
    public static let settings: [SettingSpec] = []

    public static func make(session: SessionConfig, environment: BackendEnvironment) throws -> any Backend {
        LocalBackend()
    }

    public func send(_ request: ChatRequest) -> AsyncThrowingStream<ReplyEvent, Error> {
        AsyncThrowingStream { continuation in
            continuation.yield(.finished(reason: "noted"))
            continuation.finish()
        }
    }

    public func info() async -> [(String, String)] {
        [("notes", "plain messages here are kept as notes; /search finds them")]
    }
}
