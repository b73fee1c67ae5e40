import FoundationEssentials
import Glibc

/// A Nyla gateway's workspace or chatbot instance: local login with cookies (or a bearer
/// token), CSRF and mandate/instance headers, chat streamed as typed SSE events over POST,
/// stop, server-side threads (workflows), files, pending edits and the prompt library.
///
/// Split by concern: NylaWire (every wire shape), NylaClient (HTTP, login, errors),
/// NylaEventDecoder (the stream), NylaBackend+Chat (sending and stopping), and one file of
/// commands per area.
public final class NylaBackend: Backend, BackendKind {
    public static let name = "nyla"
    public static let summary = "a Nyla gateway's workspace or chatbot instance"
    public static let settings: [SettingSpec] = [
        SettingSpec("url", "the gateway, e.g. https://nyla.example.com", required: true),
        SettingSpec("instance", "the workspace or chatbot instance id (/instances lists them, /instance picks one)"),
        SettingSpec("mandate", "the instance's mandate id (set by /instance; looked up when missing)"),
        SettingSpec("feature", "workspace or chatbot (set by /instance; looked up when missing)"),
        SettingSpec("user", "the user name for /login"),
        SettingSpec("password", "SECRET for logging in without being asked (env:VAR, file:PATH, cmd:COMMAND)"),
        SettingSpec("auth", "bearer:SECRET to use an API token instead of logging in"),
        SettingSpec("language", "userLanguage sent with messages: de, en or fr (default from LANG, else de)"),
        SettingSpec("providers", "comma-separated allowedProviders for workspace messages"),
        SettingSpec("data_sources", "comma-separated dataSourceIds for workspace messages"),
    ]

    public static let commands: [CommandSpec] = [
        CommandSpec("login", [.optional("USER")], "log in to the gateway (the password is asked without echo)", group: "nyla",
                    secretArguments: true, run: nyla(NylaBackend.loginCommand)),
        CommandSpec("logout", "log out and forget the gateway's cookies", group: "nyla", run: nyla(NylaBackend.logoutCommand)),
        CommandSpec("instances", "list your mandates, features and instances", group: "nyla",
                    run: nyla(NylaBackend.instancesCommand)),
        CommandSpec("instance", [.optional("ID", .dynamic("instances"))], "switch this session to a workspace or chatbot instance",
                    group: "nyla", run: nyla(NylaBackend.instanceCommand)),
        CommandSpec("files", [.optional("FOLDER", .dynamic("folders"))], "list the workspace's folders and files", group: "files",
                    run: nyla(NylaBackend.filesCommand)),
        CommandSpec("upload", [.one("PATH", .files), .optional("FOLDER", .dynamic("folders"))], "upload a file to the workspace",
                    group: "files", run: nyla(NylaBackend.uploadCommand)),
        CommandSpec("download", [.one("ID", .dynamic("files")), .optional("PATH", .files)], "save a workspace file",
                    group: "files", run: nyla(NylaBackend.downloadCommand)),
        CommandSpec("file", [.one("ID", .dynamic("files")), .optional("PAGE")],
                    "preview a workspace file (text by pages; binaries described)", group: "files",
                    run: nyla(NylaBackend.fileCommand)),
        CommandSpec("attach", [.optionalText("PATH", .files)], "upload a file; it goes with your next message", group: "files",
                    run: nyla(NylaBackend.attachCommand)),
        CommandSpec("edits", [.optional("ID", .dynamic("edits"))], "list the agent's pending edits with their diffs",
                    group: "pending edits", run: nyla(NylaBackend.editsCommand)),
        CommandSpec("accept", [.one("ID|all", .dynamic("edits"))], "apply a pending edit, or all of them", group: "pending edits",
                    run: nyla(NylaBackend.acceptCommand)),
        CommandSpec("reject", [.one("ID|all", .dynamic("edits"))], "discard a pending edit, or all of them", group: "pending edits",
                    run: nyla(NylaBackend.rejectCommand)),
        CommandSpec("prompts", "list the gateway's prompt library", group: "prompts and forms",
                    run: nyla(NylaBackend.promptsCommand)),
        CommandSpec("prompt", [.one("NAME", .dynamic("prompts")), .any("KEY=VALUE")], "put a library prompt in the input line",
                    group: "prompts and forms", hint: "/prompts lists the names", run: handler(NylaBackend.promptCommand)),
    ]

    /// A Nyla command that answers with lines: what it noted on the way (a login) goes first.
    static func nyla(_ method: @escaping @Sendable (NylaBackend) -> (CommandContext, NylaNotes) async throws -> Document)
        -> CommandHandler {
        handler { backend in { context in
            .output(try await method(backend)(context, NylaNotes(forward: { context.notes.add($0) })))
        } }
    }

    let session: SessionConfig
    /// The session's history: the files /attach keeps for the next message.
    let history: SessionHistory?
    let client: NylaClient
    let state: NylaSessionState
    let environment: [String: String]
    let options: NylaWire.StreamOptions
    let instanceSetting: String?
    let mandateSetting: String?
    let featureSetting: NylaFeature?

    init(session: SessionConfig, environment: BackendEnvironment) throws {
        self.session = session
        history = environment.history(of: session.name)
        self.environment = environment.environment
        guard let url = session.url, url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://") else {
            throw HarkError.badSetting(session: session.name, problem: "url must be the gateway's http(s) address, e.g. https://nyla.example.com")
        }
        state = NylaSessionState.shared(paths: environment.paths, session: session.name, gateway: url)
        client = try NylaClient(session: session, environment: environment, state: state)
        instanceSetting = session["instance"]
        mandateSetting = session["mandate"]
        if let feature = session["feature"] {
            guard let parsed = NylaFeature(rawValue: feature.lowercased()) else {
                throw HarkError.badSetting(session: session.name, problem: "feature must be workspace or chatbot, not \"\(feature)\"")
            }
            featureSetting = parsed
        } else {
            featureSetting = nil
        }
        let language = session["language"] ?? Self.language(from: environment.environment["LANG"])
        guard ["de", "en", "fr"].contains(language) else {
            throw HarkError.badSetting(session: session.name, problem: "language must be de, en or fr, not \"\(language)\"")
        }
        options = NylaWire.StreamOptions(dataSourceIDs: Self.list(session["data_sources"]), language: language,
                                         providers: Self.list(session["providers"]))
        client.reauthenticate = { [weak self] notes in
            guard let self, let done = try await self.loginWithStoredPassword(notes: notes) else { return false }
            try await notes?.add(done + " again")
            return true
        }
    }

    public static func make(session: SessionConfig, environment: BackendEnvironment) throws -> any Backend {
        try NylaBackend(session: session, environment: environment)
    }

    static func language(from lang: String?) -> String {
        let code = String((lang ?? "").prefix(2)).lowercased()
        return ["de", "en", "fr"].contains(code) ? code : "de"
    }

    static func list(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingSpaces }.filter { !$0.isEmpty }
    }

    // MARK: Login and instance, needed by nearly everything

    /// Makes sure requests will be authenticated: a token, a saved login, the `password`
    /// setting, or (in the shell) asking. Returns what it did, for the output.
    /// A saved login whose cookies have all expired counts as none: with a stored password hark
    /// logs in again before the request instead of sending it without cookies.
    @discardableResult
    func ensureLogin(_ interaction: Interaction?, notes: NylaNotes?) async throws -> String? {
        if client.isLoggedIn { return nil }
        if let done = try await loginWithStoredPassword(notes: notes) { return done }
        if let interaction, interaction.isInteractive {
            return try await interactiveLogin(user: nil, interaction: interaction, notes: notes)
        }
        let state = client.loginExpired ? "the saved login to \(client.host) has expired" : "not logged in to \(client.host)"
        throw HarkError.authentication("\(state); /login signs in (or set password = env:VAR, or auth = bearer:SECRET)")
    }

    /// Logs in with the `user` and `password` settings; nil when the session stores no password.
    func loginWithStoredPassword(notes: NylaNotes?) async throws -> String? {
        guard let reference = session["password"] else { return nil }
        guard let user = session["user"] else {
            throw HarkError.usage("session \(session.name) has a password but no user; add user = NAME")
        }
        let password = try SecretReference(reference).resolve(
            environment: environment,
            commandTimeout: try session.double("secret_timeout") ?? SecretReference.defaultCommandTimeout)
        let name = try await client.login(user: user, password: password, notes: notes)
        return "logged in to \(client.host) as \(name)"
    }

    func interactiveLogin(user given: String?, interaction: Interaction, notes: NylaNotes?) async throws -> String {
        var user = given ?? session["user"]
        if user == nil {
            guard let answer = await interaction.ask("\(client.host) user: ", secret: false), !answer.isEmpty else {
                throw HarkError.usage("login cancelled")
            }
            user = answer.trimmingSpaces
        }
        guard let user else { throw HarkError.usage("login cancelled") }
        guard let password = await interaction.ask("password for \(user): ", secret: true), !password.isEmpty else {
            throw HarkError.usage("login cancelled")
        }
        SecretValues.remember(password)
        let name = try await client.login(user: user, password: password, notes: notes)
        return "logged in to \(client.host) as \(name)"
    }

    /// Mandates → features → instances, fetched once and kept until the login changes.
    func mandates(notes: NylaNotes?, refresh: Bool = false) async throws -> [NylaMandate] {
        if !refresh, let cached = state.read({ $0.mandates }) { return cached }
        let json = try await client.json("GET", NylaWire.features, notes: notes)
        let mandates = NylaWire.mandates(json, language: options.language)
        state.update { $0.mandates = mandates }
        return mandates
    }

    /// The instance this session talks to, and whether it is a workspace or a chatbot.
    func instance(notes: NylaNotes?) async throws -> (NylaInstance, NylaFeature) {
        if let cached = state.read({ $0.instance }), let feature = cached.chat,
           instanceSetting == nil || instanceSetting == cached.id {
            return (cached, feature)
        }
        if let id = instanceSetting, let mandate = mandateSetting, let feature = featureSetting {
            // Everything is in the config: no lookup, as the web app does from its URL.
            let known = NylaInstance(id: id, featureCode: feature.rawValue, mandateID: mandate, mandateName: mandate, label: id)
            state.update { $0.instance = known }
            return (known, feature)
        }
        let all = try await mandates(notes: notes).flatMap(\.instances)
        let chosen: NylaInstance
        if let id = instanceSetting {
            guard let found = all.first(where: { $0.id == id }) else {
                throw HarkError.usage("instance \(id) is not among yours on \(client.host); /instances lists them")
            }
            guard found.chat != nil else {
                throw HarkError.usage("instance \(id) is \(found.featureCode.withIndefiniteArticle) instance; hark chats with workspace and chatbot instances")
            }
            chosen = found
        } else {
            let chat = all.filter { $0.chat != nil }
            guard chat.count == 1 else {
                throw HarkError.usage(chat.isEmpty ? "you have no workspace or chatbot instance on \(client.host)"
                                                   : "choose an instance: /instances lists them, /instance ID picks one")
            }
            chosen = chat[0]
        }
        state.update { $0.instance = chosen }
        return (chosen, chosen.chat!)
    }

    // MARK: Backend

    public func promptBadge() -> String? {
        let count = state.read { values in values.instance.flatMap { values.editCounts[$0.id] } } ?? 0
        guard count > 0 else { return nil }
        return count == 1 ? "1 edit" : "\(count) edits"
    }

    public func completions(for key: String) -> [String] {
        state.read { values in
            switch key {
            case "instances": return values.mandates.map { $0.flatMap(\.instances).filter { $0.chat != nil }.map(\.id) } ?? []
            case "folders": return values.folders.map(\.name).filter { !$0.contains(" ") } + values.folders.map(\.id)
            case "files": return values.files.map(\.id)
            case "edits": return ["all"] + values.edits.map(\.id)
            case "prompts": return values.prompts.map(\.name).filter { !$0.contains(" ") }
            default: return []
            }
        }
    }

    /// Files are uploaded to the workspace by its own /attach and go with the message by id.
    public func fileIntake(for content: FileContent) async -> FileIntake { .files(limit: nil) }

    public func info() async -> [(String, String)] {
        var facts: [(String, String)] = []
        if client.usesToken {
            facts.append(("login", "bearer token"))
        } else if client.isLoggedIn {
            facts.append(("login", "as \(client.userName ?? "?") (cookies in \(client.loginFile.path))"))
        } else {
            facts.append(("login", "not logged in; /login signs in"))
        }
        let (instance, counts) = state.read { ($0.instance, $0.editCounts) }
        let attached = (try? history?.pendingAttachments()) ?? []
        if let instance {
            facts.append(("instance", "\(instance.label) (\(instance.featureCode) \(instance.id), mandate \(instance.mandateName))"))
            if let count = counts[instance.id] { facts.append(("pending edits", String(count))) }
        } else if let id = instanceSetting {
            facts.append(("instance", id))
        } else {
            facts.append(("instance", "none chosen; /instances lists them"))
        }
        if !attached.isEmpty { facts.append(("attached", attached.map(\.name).joined(separator: ", "))) }
        facts.append(("language", options.language))
        return facts
    }

    /// Login (asked if needed) and the instance, for a command.
    func prepare(_ context: CommandContext, notes: NylaNotes) async throws -> (NylaInstance, NylaFeature) {
        if let done = try await ensureLogin(context.interaction, notes: notes) { try await notes.add(done) }
        return try await instance(notes: notes)
    }

    /// The instance for a command that only a workspace has (files, pending edits).
    func workspaceInstance(_ context: CommandContext, notes: NylaNotes, for what: String) async throws -> NylaInstance {
        let (instance, feature) = try await prepare(context, notes: notes)
        guard feature == .workspace else {
            throw HarkError.usage("\(what) belong to workspace instances and \(instance.label) is a chatbot; /instance switches")
        }
        return instance
    }
}
