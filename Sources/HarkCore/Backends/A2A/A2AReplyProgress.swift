import FoundationEssentials
import Glibc

/// One reply's view of its A2A task, fed every event that concerns it (streamed, resubscribed
/// or polled), turning each into the ReplyEvents the user has not seen yet. A snapshot of the
/// task (the first event of a resubscription, each poll of GetTask) repeats what came before:
/// per artifact it remembers how much text was shown and which file parts were listed, so only
/// the rest is shown.
///
/// Shared by the stream decoder and the backend (which reads the task id and the end), hence a
/// class with a lock.
public final class A2AReplyProgress: @unchecked Sendable {
    /// A file part the agent sent, as the backend lists and saves it.
    public struct ReceivedFile: Sendable, Equatable {
        public var taskID: String?
        public var artifactID: String?
        /// Its place among the artifact's parts (or the message's), to find it again in the task.
        public var partIndex: Int
        public var part: A2AWire.FilePart
    }

    private let lock = Lock()
    private var taskIDValue: String?
    private var contextIDValue: String?
    private let knownContextID: String?
    private var finalState: A2AWire.TaskState?
    private var lastStatusLine: String?
    /// Per artifact: the bytes of its text shown, the parts seen, its file parts listed.
    private var shownText: [String: Int] = [:]
    private var partCounts: [String: Int] = [:]
    private var listedFiles: Set<String> = []
    private var announced: Set<String> = []
    private var wroteText = false
    private var endsWithNewline = true
    /// The text source (artifact id, or "" for messages) the last text came from.
    private var lastSource: String?
    private var files: [ReceivedFile] = []
    /// The parts of an input-required status that asks a form (A2AFormShape), until the
    /// backend takes them; the status that asked it, once answered, so that a snapshot
    /// showing it again is not a new question.
    private var form: [A2AWire.Part]?
    private var formAsked: A2AWire.Message?
    private var answered: A2AWire.Message?
    /// Says how a received file is listed ("file 3: …"); the backend numbers them.
    private let describeFile: @Sendable (ReceivedFile) -> String

    public init(knownContextID: String? = nil,
                describeFile: @escaping @Sendable (ReceivedFile) -> String = { A2AReplyProgress.plainDescription($0.part) }) {
        self.knownContextID = knownContextID
        self.describeFile = describeFile
    }

    public var taskID: String? { lock.withLock { taskIDValue } }
    public var contextID: String? { lock.withLock { contextIDValue } }
    /// The state the reply ended in; nil while the task goes on.
    public var endState: A2AWire.TaskState? { lock.withLock { finalState } }
    public var isSettled: Bool { endState != nil }
    public var receivedFiles: [ReceivedFile] { lock.withLock { files } }

    /// The parts of the form the task ended waiting for, taken once: the backend asks it, and
    /// the reply says neither "input-required" nor that it finished until the backend knows
    /// the answer.
    func takeForm() -> [A2AWire.Part]? {
        lock.withLock {
            defer { form = nil }
            return form
        }
    }

    /// The form was answered in the same task: its next events belong to this reply.
    func resumeAfterAnswer() {
        lock.withLock {
            answered = formAsked ?? answered
            form = nil
            finalState = nil
            lastStatusLine = nil
        }
    }

    /// The events this one adds. Throws the task's failure (`failed`, with its message).
    public func apply(_ event: A2AWire.Event, into events: inout [ReplyEvent]) throws {
        try lock.withLock {
            guard finalState == nil else { return }
            switch event {
            case .message(let message):
                note(taskID: message.taskID, contextID: message.contextID, into: &events)
                appendText(of: message.parts, source: "", artifactID: nil, startIndex: 0, into: &events)
                try settle(.completed, message: nil, into: &events)
            case .task(let task):
                note(taskID: task.id, contextID: task.contextID, into: &events)
                for artifact in task.artifacts { applySnapshot(of: artifact, into: &events) }
                try applyStatus(task.status, into: &events)
            case .status(let taskID, let contextID, let status):
                note(taskID: taskID, contextID: contextID, into: &events)
                try applyStatus(status, into: &events)
            case .artifact(let taskID, let contextID, let artifact, let append, _):
                note(taskID: taskID, contextID: contextID, into: &events)
                applyChunk(artifact, append: append, into: &events)
            }
        }
    }

    // MARK: Ids

    private func note(taskID: String?, contextID: String?, into events: inout [ReplyEvent]) {
        if taskIDValue == nil, let taskID, !taskID.isEmpty {
            taskIDValue = taskID
            events.append(.backendMessageID(taskID))
        }
        if contextIDValue == nil, let contextID, !contextID.isEmpty {
            contextIDValue = contextID
            if contextID != knownContextID { events.append(.backendThreadID(contextID)) }
        }
    }

    // MARK: Status

    private func applyStatus(_ status: A2AWire.Status, into events: inout [ReplyEvent]) throws {
        if status.state == .inputRequired, let message = status.message, message.parts.contains(where: Self.isForm) {
            // A snapshot taken before the agent read the answer still shows the question.
            guard message != answered else { return }
            appendText(of: message.parts.filter { !Self.isForm($0) }, source: "", artifactID: nil, startIndex: 0, into: &events)
            form = message.parts
            formAsked = message
            finalState = .inputRequired
            return
        }
        if status.state != .inputRequired { answered = nil }
        let said = status.message.map { Self.text(of: $0.parts) } ?? ""
        switch status.state {
        case .submitted, .unknown:
            if !said.isEmpty { statusLine("\(status.state.rawValue): \(said)", into: &events) }
        case .working:
            statusLine(said.isEmpty ? "working" : "working: \(said)", into: &events)
        case .completed, .rejected, .canceled, .inputRequired, .authRequired:
            // What the agent says at the end is part of its answer (the question it asks).
            if let message = status.message { appendText(of: message.parts, source: "", artifactID: nil, startIndex: 0, into: &events) }
            try settle(status.state, message: said, into: &events)
        case .failed:
            try settle(.failed, message: said, into: &events)
        }
    }

    static func isForm(_ part: A2AWire.Part) -> Bool {
        if case .data(let data) = part { return A2AFormShape.schema(in: data) != nil }
        return false
    }

    private func statusLine(_ line: String, into events: inout [ReplyEvent]) {
        guard line != lastStatusLine else { return }
        lastStatusLine = line
        events.append(.status(line))
    }

    private func settle(_ state: A2AWire.TaskState, message: String?, into events: inout [ReplyEvent]) throws {
        finalState = state
        switch state {
        case .failed:
            throw HarkError.backend("the agent's task failed" + (message.map { $0.isEmpty ? "" : ": " + Self.oneLine($0) } ?? ""))
        case .inputRequired:
            events.append(.status("input-required: your next message answers the agent"))
        case .authRequired:
            events.append(.status("auth-required: authenticate as the agent says, then reply to go on"))
        default:
            events.append(.status(state.rawValue))
        }
        events.append(.finished(reason: state.rawValue))
    }

    // MARK: Text and files

    private func applyChunk(_ artifact: A2AWire.Artifact, append: Bool, into events: inout [ReplyEvent]) {
        if !append {
            shownText[artifact.id] = 0
            partCounts[artifact.id] = 0
        }
        announce(artifact, into: &events)
        let start = partCounts[artifact.id] ?? 0
        let shown = appendText(of: artifact.parts, source: artifact.id, artifactID: artifact.id, startIndex: start, into: &events)
        shownText[artifact.id, default: 0] += shown
        partCounts[artifact.id] = start + artifact.parts.count
    }

    /// A whole artifact as a task snapshot holds it: shows the text not shown yet, lists the
    /// files not listed yet.
    private func applySnapshot(of artifact: A2AWire.Artifact, into events: inout [ReplyEvent]) {
        let whole = Self.text(of: artifact.parts)
        let shown = shownText[artifact.id] ?? 0
        let bytes = Array(whole.utf8)
        if bytes.count > shown || artifact.parts.contains(where: { if case .file = $0 { true } else { false } }) {
            announce(artifact, into: &events)
        }
        if bytes.count > shown {
            emit(String(decoding: bytes[shown...], as: UTF8.self), source: artifact.id, into: &events)
            shownText[artifact.id] = bytes.count
        }
        for (index, part) in artifact.parts.enumerated() {
            if case .file(let file) = part { list(file, artifactID: artifact.id, index: index, into: &events) }
        }
        partCounts[artifact.id] = max(partCounts[artifact.id] ?? 0, artifact.parts.count)
    }

    private func announce(_ artifact: A2AWire.Artifact, into events: inout [ReplyEvent]) {
        guard announced.insert(artifact.id).inserted else { return }
        events.append(.artifact(id: artifact.id, name: artifact.name))
    }

    /// Shows the parts' text and lists their files; returns the bytes of text shown.
    @discardableResult
    private func appendText(of parts: [A2AWire.Part], source: String, artifactID: String?, startIndex: Int,
                            into events: inout [ReplyEvent]) -> Int {
        let text = Self.text(of: parts)
        emit(text, source: source, into: &events)
        for (offset, part) in parts.enumerated() {
            if case .file(let file) = part { list(file, artifactID: artifactID, index: startIndex + offset, into: &events) }
        }
        return text.utf8.count
    }

    private func emit(_ text: String, source: String, into events: inout [ReplyEvent]) {
        guard !text.isEmpty else { return }
        // Another artifact, or a message after an artifact, starts a paragraph of its own.
        if wroteText, lastSource != source {
            let gap = endsWithNewline ? "\n" : "\n\n"
            events.append(.text(gap))
        }
        events.append(.text(text))
        wroteText = true
        lastSource = source
        endsWithNewline = text.hasSuffix("\n")
    }

    private func list(_ file: A2AWire.FilePart, artifactID: String?, index: Int, into events: inout [ReplyEvent]) {
        let key = (artifactID ?? "message") + "#\(index)"
        guard listedFiles.insert(key).inserted else { return }
        let received = ReceivedFile(taskID: taskIDValue, artifactID: artifactID, partIndex: index, part: file)
        files.append(received)
        events.append(.notice(describeFile(received)))
    }

    /// The text of some parts: text parts run on (streamed chunks are pieces of one text), a
    /// data part is compact JSON on a line of its own, file parts are listed, not shown.
    public static func text(of parts: [A2AWire.Part]) -> String {
        var text = ""
        for part in parts {
            switch part {
            case .text(let piece):
                text += piece
            case .data(let value):
                if !text.isEmpty, !text.hasSuffix("\n") { text += "\n" }
                text += value.encoded() + "\n"
            case .file:
                break
            }
        }
        return text
    }

    static func oneLine(_ text: String) -> String {
        ServerMessage.clip(text.trimmed)
    }

    /// "report.csv (24 bytes, text/csv)", or its link when the agent sent one.
    public static func plainDescription(_ file: A2AWire.FilePart) -> String {
        var details: [String] = []
        if let bytes = file.bytes { details.append(ByteCount.format(bytes.count)) }
        if let type = file.mediaType { details.append(type) }
        return (file.name ?? file.url ?? "a file") + (details.isEmpty ? "" : " (" + details.joined(separator: ", ") + ")")
    }
}
