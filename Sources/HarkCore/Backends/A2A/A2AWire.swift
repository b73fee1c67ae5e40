import FoundationEssentials
import Glibc

/// Every A2A wire shape hark reads or writes, in one place. Read from the official Python SDK
/// (PyPI `a2a-sdk` 1.3.0, which implements protocol 1.0 and, in compat mode, 0.3):
/// - 1.0 method names: `a2a/server/routes/jsonrpc_dispatcher.py` (METHOD_TO_MODEL:
///   SendMessage, SendStreamingMessage, GetTask, CancelTask, SubscribeToTask); the
///   `A2A-Version` header (`a2a/utils/version_validator.py`: missing means 0.3).
/// - 1.0 JSON: protobuf JSON of `a2a/types/a2a_pb2.py` (camelCase; enums as
///   `TASK_STATE_WORKING`, `ROLE_AGENT`); a streamed result is a StreamResponse
///   `{task|message|statusUpdate|artifactUpdate}`, GetTask/CancelTask answer a bare Task.
///   A Part is `{text}`, `{raw (base64), filename, mediaType}`, `{url, filename, mediaType}`
///   or `{data}`.
/// - 0.3: `a2a/compat/v0_3/jsonrpc_adapter.py` (message/send, message/stream, tasks/get,
///   tasks/cancel, tasks/resubscribe) and `a2a/compat/v0_3/types.py`: results carry `kind`
///   (`task`, `message`, `status-update`, `artifact-update`), states are lower-case
///   (`input-required`), parts are `{kind:text,text}`, `{kind:file,file:{name,mimeType,bytes|uri}}`,
///   `{kind:data,data}`.
/// - Errors: `a2a/utils/errors.py` (JSON_RPC_ERROR_CODE_MAP).
public enum A2AWire {
    /// The protocol versions hark speaks: the SDK's current one, and the 0.3 most agents deployed.
    public enum Version: String, Sendable, Equatable {
        case v1_0 = "1.0"
        case v0_3 = "0.3"

        /// From an interface's `protocolVersion`: major 1 is 1.0, anything else (0.3.0, none)
        /// is read as 0.3, as the SDK's client does (`client_factory.py` `_find_best_interface`).
        init(interface text: String?) {
            self = (text ?? "").split(separator: ".").first == "1" ? .v1_0 : .v0_3
        }
    }

    public enum Method: Sendable {
        case send, stream, get, cancel, subscribe

        func name(_ version: Version) -> String {
            switch (self, version) {
            case (.send, .v1_0): return "SendMessage"
            case (.stream, .v1_0): return "SendStreamingMessage"
            case (.get, .v1_0): return "GetTask"
            case (.cancel, .v1_0): return "CancelTask"
            case (.subscribe, .v1_0): return "SubscribeToTask"
            case (.send, .v0_3): return "message/send"
            case (.stream, .v0_3): return "message/stream"
            case (.get, .v0_3): return "tasks/get"
            case (.cancel, .v0_3): return "tasks/cancel"
            case (.subscribe, .v0_3): return "tasks/resubscribe"
            }
        }
    }

    // MARK: Requests

    /// A file going out with a message.
    public struct OutgoingFile: Sendable, Equatable {
        public var name: String
        public var mediaType: String
        public var bytes: [UInt8]
    }

    /// The JSON-RPC request envelope.
    public static func request(_ method: Method, _ version: Version, id: Int, params: JSON) -> JSON {
        ["jsonrpc": "2.0", "id": .number(Double(id)), "method": .string(method.name(version)), "params": params]
    }

    /// The user's message: text, files as parts, the context (thread) and the task it answers.
    /// `data`: a form's answers, sent as a data part (1.0 `{data}`, 0.3 `{kind: data, data}`) as
    /// the A2A samples' demo client answers a form (demo/ui/components/form_render.py).
    public static func message(text: String, data: JSON? = nil, files: [OutgoingFile], messageID: String, contextID: String?,
                               taskID: String?, version: Version) -> JSON {
        var parts: [JSON] = []
        if let data {
            parts.append(version == .v1_0 ? ["data": data] : ["kind": "data", "data": data])
        } else if !text.isEmpty || files.isEmpty {
            parts.append(version == .v1_0 ? ["text": .string(text)] : ["kind": "text", "text": .string(text)])
        }
        for file in files {
            let encoded = JSON.string(Data(file.bytes).base64EncodedString())
            parts.append(version == .v1_0
                ? ["raw": encoded, "filename": .string(file.name), "mediaType": .string(file.mediaType)]
                : ["kind": "file", "file": ["name": .string(file.name), "mimeType": .string(file.mediaType), "bytes": encoded]])
        }
        var message: [String: JSON] = ["messageId": .string(messageID), "parts": .array(parts),
                                       "role": version == .v1_0 ? "ROLE_USER" : "user"]
        if version == .v0_3 { message["kind"] = "message" }
        if let contextID { message["contextId"] = .string(contextID) }
        if let taskID { message["taskId"] = .string(taskID) }
        return .object(message)
    }

    /// SendMessage / SendStreamingMessage params. Not streaming: answer at once with the task
    /// (1.0 `returnImmediately`, 0.3 `blocking: false`) so hark can poll it and show progress.
    /// `push`: where the agent posts the task's updates, with the token it must carry (1.0
    /// `SendMessageConfiguration.taskPushNotificationConfig`, 0.3 `pushNotificationConfig`).
    public static func sendParams(message: JSON, streaming: Bool, tenant: String?, version: Version,
                                  push: PushConfig? = nil) -> JSON {
        var params: [String: JSON] = ["message": message]
        var configuration: [String: JSON] = [:]
        if !streaming {
            configuration[version == .v1_0 ? "returnImmediately" : "blocking"] = .bool(version == .v1_0)
        }
        if let push {
            configuration[version == .v1_0 ? "taskPushNotificationConfig" : "pushNotificationConfig"] =
                ["url": .string(push.url), "token": .string(push.token)]
        }
        if !configuration.isEmpty { params["configuration"] = .object(configuration) }
        if let tenant, version == .v1_0 { params["tenant"] = .string(tenant) }
        return .object(params)
    }

    /// A push notification config sent with a message: the URL `hark watch --listen` serves
    /// and a token made for this task alone.
    public struct PushConfig: Sendable, Equatable {
        public var url: String
        public var token: String
    }

    /// GetTask, CancelTask, SubscribeToTask params: the task id (and no history for GetTask).
    public static func taskParams(_ taskID: String, method: Method, tenant: String?, version: Version) -> JSON {
        var params: [String: JSON] = ["id": .string(taskID)]
        if method == .get { params["historyLength"] = 0 }
        if let tenant, version == .v1_0 { params["tenant"] = .string(tenant) }
        return .object(params)
    }

    // MARK: What the agent sends

    public enum TaskState: String, Sendable, Equatable {
        case submitted, working, completed, failed, canceled, rejected, unknown
        case inputRequired = "input-required"
        case authRequired = "auth-required"

        /// `TASK_STATE_INPUT_REQUIRED` (1.0) or `input-required` (0.3).
        init(wire text: String) {
            var name = text
            if name.hasPrefix("TASK_STATE_") {
                name = String(name.dropFirst("TASK_STATE_".count)).lowercased().replacingOccurrences(of: "_", with: "-")
            }
            self = TaskState(rawValue: name) ?? .unknown
        }

        /// No more will happen to the task.
        public var isTerminal: Bool { [.completed, .failed, .canceled, .rejected].contains(self) }
        /// The agent waits for the user: the next message goes to this task.
        public var isInterrupted: Bool { self == .inputRequired || self == .authRequired }
    }

    public struct FilePart: Sendable, Equatable {
        public var name: String?
        public var mediaType: String?
        public var bytes: [UInt8]?
        public var url: String?
    }

    public enum Part: Sendable, Equatable {
        case text(String)
        case file(FilePart)
        case data(JSON)
    }

    public struct Message: Sendable, Equatable {
        public var parts: [Part]
        public var taskID: String?
        public var contextID: String?
        /// `messageId`: tells a question asked again from the same one seen again in a snapshot.
        public var messageID: String? = nil
    }

    public struct Artifact: Sendable, Equatable {
        public var id: String
        public var name: String?
        public var parts: [Part]
    }

    public struct Status: Sendable, Equatable {
        public var state: TaskState
        public var message: Message?
    }

    public struct AgentTask: Sendable, Equatable {
        public var id: String
        public var contextID: String?
        public var status: Status
        public var artifacts: [Artifact]
    }

    public enum Event: Sendable, Equatable {
        case task(AgentTask)
        case message(Message)
        case status(taskID: String?, contextID: String?, Status)
        case artifact(taskID: String?, contextID: String?, Artifact, append: Bool, lastChunk: Bool)
    }

    /// A JSON-RPC response: its result as an event, or its error as the HarkError to show.
    public static func event(fromResponse json: JSON) throws -> Event {
        if let error = json["error"], !error.isNull { throw Self.error(error) }
        guard let result = json["result"] else {
            throw HarkError.protocolViolation("the agent sent a JSON-RPC response without result or error")
        }
        return try event(fromResult: result)
    }

    /// The result of any method, in either version's shape.
    static func event(fromResult result: JSON) throws -> Event {
        if let kind = result["kind"]?.string {
            switch kind {
            case "task": return .task(try task(result))
            case "message": return .message(message(result))
            case "status-update":
                return .status(taskID: result["taskId"]?.string, contextID: result["contextId"]?.string, status(result["status"]))
            case "artifact-update":
                return .artifact(taskID: result["taskId"]?.string, contextID: result["contextId"]?.string,
                                 try artifact(result["artifact"]), append: result["append"]?.bool ?? false,
                                 lastChunk: result["lastChunk"]?.bool ?? false)
            default: throw HarkError.protocolViolation("the agent sent an event of unknown kind \"\(kind.prefix(40))\"")
            }
        }
        if let task = result["task"] { return .task(try self.task(task)) }
        if let message = result["message"] { return .message(self.message(message)) }
        if let update = result["statusUpdate"] {
            return .status(taskID: update["taskId"]?.string, contextID: update["contextId"]?.string, status(update["status"]))
        }
        if let update = result["artifactUpdate"] {
            return .artifact(taskID: update["taskId"]?.string, contextID: update["contextId"]?.string,
                             try artifact(update["artifact"]), append: update["append"]?.bool ?? false,
                             lastChunk: update["lastChunk"]?.bool ?? false)
        }
        if result["id"] != nil, result["status"] != nil { return .task(try task(result)) }
        throw HarkError.protocolViolation("the agent sent a result hark does not understand: "
                                          + String(result.encoded().prefix(60)))
    }

    static func task(_ json: JSON) throws -> AgentTask {
        guard let id = json["id"]?.string, !id.isEmpty else {
            throw HarkError.protocolViolation("the agent sent a task without an id")
        }
        return AgentTask(id: id, contextID: json["contextId"]?.string, status: status(json["status"]),
                    artifacts: try (json["artifacts"]?.array ?? []).map { try artifact($0) })
    }

    static func status(_ json: JSON?) -> Status {
        Status(state: TaskState(wire: json?["state"]?.string ?? ""), message: json?["message"].map(message))
    }

    static func message(_ json: JSON) -> Message {
        Message(parts: parts(json["parts"]), taskID: json["taskId"]?.string, contextID: json["contextId"]?.string,
                messageID: json["messageId"]?.string)
    }

    static func artifact(_ json: JSON?) throws -> Artifact {
        guard let json, let id = json["artifactId"]?.string else {
            throw HarkError.protocolViolation("the agent sent an artifact without an artifactId")
        }
        return Artifact(id: id, name: json["name"]?.string.flatMap { $0.isEmpty ? nil : $0 }, parts: parts(json["parts"]))
    }

    /// Parts of either version; one hark cannot read is skipped.
    static func parts(_ json: JSON?) -> [Part] {
        (json?.array ?? []).compactMap { part in
            if let text = part["text"]?.string { return .text(text) }
            if let data = part["data"], part["kind"]?.string != "file" { return .data(data) }
            let file = part["file"] ?? part
            let name = (file["filename"] ?? file["name"])?.string.flatMap { $0.isEmpty ? nil : $0 }
            let type = (file["mediaType"] ?? file["mimeType"])?.string.flatMap { $0.isEmpty ? nil : $0 }
            if let encoded = (file["raw"] ?? file["bytes"])?.string {
                return .file(FilePart(name: name, mediaType: type, bytes: Data(base64Encoded: encoded).map { Array($0) } ?? [],
                                      url: nil))
            }
            if let url = (file["url"] ?? file["uri"])?.string {
                return .file(FilePart(name: name, mediaType: type, bytes: nil, url: url))
            }
            return nil
        }
    }

    /// A JSON-RPC error as a one-line HarkError (all of them exit 6).
    static func error(_ json: JSON) -> HarkError {
        let code = json["code"]?.int
        let message = json["message"]?.string.map(ServerMessage.clip) ?? "an error without a message"
        switch code {
        case -32001: return .backend("the agent no longer knows that task (\(message))")
        case -32002: return .backend("the task can no longer be canceled (\(message))")
        case -32601: return .protocolViolation("the agent does not know this A2A method (\(message)); /agent reloads its card")
        case -32009: return .protocolViolation("the agent does not speak this A2A version (\(message)); /agent reloads its card")
        default: return .backend("the agent answered: \(message)" + (code.map { " (A2A error \($0))" } ?? ""))
        }
    }
}
