import FoundationEssentials
import Glibc

/// The gateway's threads (workspace workflows, chatbot threads) for the core `/threads` and
/// `/thread`, which mirror each by a local thread holding its id. A chatbot's thread is made
/// by its first message and keeps its name on the gateway.
extension NylaBackend: RemoteThreads {
    public var threadServer: String { "the gateway" }

    public func listThreads(_ context: CommandContext) async throws -> [RemoteThread]? {
        let notes = NylaNotes(forward: { context.notes.add($0) })
        let (instance, feature) = try await prepare(context, notes: notes)
        return try await client.allItems(NylaWire.threads(instance, feature), key: feature == .workspace ? "workflows" : "threads",
                                         instance: instance, notes: notes).compactMap(NylaWire.thread)
    }

    public func createThread(title: String, _ context: CommandContext) async throws -> NewRemoteThread {
        let notes = NylaNotes(forward: { context.notes.add($0) })
        let (instance, feature) = try await prepare(context, notes: notes)
        guard feature == .workspace else { return .withFirstMessage(note: "the chatbot creates it with your first message") }
        let json = try await client.json("POST", NylaWire.threads(instance, feature), json: NylaWire.threadBody(name: title),
                                         instance: instance, notes: notes)
        guard let created = NylaWire.thread(json) else {
            throw HarkError.protocolViolation("\(client.host) created the thread but did not say its id")
        }
        return .created(created)
    }

    public func renameThread(id: String, to title: String, _ context: CommandContext) async throws -> String? {
        let notes = NylaNotes(forward: { context.notes.add($0) })
        let (instance, feature) = try await prepare(context, notes: notes)
        guard feature == .workspace else { return "a chatbot's threads keep their name on the gateway; renamed here only" }
        _ = try await client.json("PATCH", NylaWire.thread(instance, feature, id), json: NylaWire.threadBody(name: title),
                                  instance: instance, notes: notes)
        return nil
    }

    public func deleteThread(id: String, _ context: CommandContext) async throws -> Bool {
        let notes = NylaNotes(forward: { context.notes.add($0) })
        let (instance, feature) = try await prepare(context, notes: notes)
        _ = try await client.json("DELETE", NylaWire.thread(instance, feature, id), instance: instance, notes: notes)
        return true
    }

    public func loadThread(id: String, _ context: CommandContext) async throws -> [Turn] {
        let notes = NylaNotes(forward: { context.notes.add($0) })
        let (instance, feature) = try await prepare(context, notes: notes)
        return try await client.allItems(NylaWire.threadMessages(instance, feature, id), key: "messages", instance: instance,
                                         notes: notes).compactMap(NylaWire.message)
    }
}
