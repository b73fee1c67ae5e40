/// Whoever answers the workspace's questions at the moment a backend asks one (the shell
/// watching the reply, or nobody in a pipe): a backend holds this from its start, the
/// workspace names the answerer once it exists.
public final class InteractionSource: Sendable {
    private let provider = Locked<@Sendable () -> Interaction>({ NonInteractive() })

    public init() {}

    func provide(_ current: @escaping @Sendable () -> Interaction) {
        provider.update { $0 = current }
    }

    public var current: Interaction { provider.read { $0 }() }
}
