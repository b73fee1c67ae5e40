import FoundationEssentials
import Glibc

// Every shape hark assumes about a Nyla gateway: paths, headers, request bodies, and how the
// answers are read. The seed fixes the endpoints and the event names; the payload fields, the
// pending-edit JSON and the upload form are hark's best guess (FastAPI style) and are written
// down in docs/nyla-protocol.md. When a real gateway disagrees, this is the file to change.
// Readers are lenient: they take the first of several plausible field names.

/// The two kinds of feature instance hark can chat with.
public enum NylaFeature: String, Sendable, Equatable {
    case workspace, chatbot
}

public struct NylaInstance: Sendable, Equatable {
    public var id: String
    public var featureCode: String
    public var mandateID: String
    public var mandateName: String
    public var label: String

    /// Nil for features hark cannot chat with (trustee, realestate…).
    public var chat: NylaFeature? { NylaFeature(rawValue: featureCode) }
}

public struct NylaFeatureGroup: Sendable, Equatable {
    public var code: String
    public var label: String
    public var instances: [NylaInstance]
}

public struct NylaMandate: Sendable, Equatable {
    public var id: String
    public var name: String
    public var features: [NylaFeatureGroup]

    public var instances: [NylaInstance] { features.flatMap(\.instances) }
}

public struct NylaFile: Sendable, Equatable {
    public var id: String
    public var name: String
    public var mimeType: String?
    public var size: Int?
    public var folderID: String?
    public var createdAt: Date?
}

public struct NylaFolder: Sendable, Equatable {
    public var id: String
    public var name: String
    public var parentID: String?
}

/// An edit the agent proposes to a file, waiting for the user to accept or reject it.
public struct NylaPendingEdit: Sendable, Equatable {
    public var id: String
    public var fileID: String?
    public var fileName: String
    public var description: String?
    public var oldContent: String?
    public var newContent: String?
    /// A ready unified diff, when the gateway sends one instead of both contents.
    public var diff: String?
}

public struct NylaPrompt: Sendable, Equatable {
    public var id: String
    public var name: String
    public var content: String
    public var description: String?
}

/// One event of a chat stream, read from its JSON.
public enum NylaEvent: Sendable, Equatable {
    case message(role: String, text: String, id: String?)
    case chunk(String)
    case status(String)
    case toolActivity(tool: String, state: String?, message: String?)
    case agentProgress(agent: String?, message: String?, step: Int?, total: Int?)
    case agentSummary(agent: String?, summary: String)
    case fileCreated(NylaFile)
    case dataSourceAccess(name: String, access: String?)
    case workflowUpdated(id: String?, name: String?)
    case complete(messageID: String?)
    case stopped
    case error(String)
    case other(String)
}

public enum NylaWire {
    // MARK: Headers

    public static let csrfHeader = "X-CSRF-Token"
    public static let mandateHeader = "X-Mandate-Id"
    public static let instanceHeader = "X-Instance-Id"

    /// 16 lowercase hex characters, fresh for each login (the gateway checks the format).
    public static func newCSRFToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<8).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte >> 4, radix: 16) + String(byte & 0x0F, radix: 16)
        }.joined()
    }

    // MARK: Paths

    public static let login = "/api/local/login"
    public static let logout = "/api/local/logout"
    public static let me = "/api/local/me"
    public static let features = "/api/features/my"
    public static let prompts = "/api/prompts"

    static func base(_ instance: NylaInstance, _ feature: NylaFeature) -> String {
        "/api/\(feature.rawValue)/\(escape(instance.id))"
    }

    public static func startStream(_ instance: NylaInstance, _ feature: NylaFeature) -> String {
        base(instance, feature) + "/start/stream"
    }

    public static func stop(_ instance: NylaInstance, _ feature: NylaFeature, workflow: String) -> String {
        base(instance, feature) + "/stop/" + escape(workflow)
    }

    /// Workspace threads are workflows; a chatbot has threads.
    public static func threads(_ instance: NylaInstance, _ feature: NylaFeature) -> String {
        base(instance, feature) + (feature == .workspace ? "/workflows" : "/threads")
    }

    public static func thread(_ instance: NylaInstance, _ feature: NylaFeature, _ id: String) -> String {
        threads(instance, feature) + "/" + escape(id)
    }

    public static func threadMessages(_ instance: NylaInstance, _ feature: NylaFeature, _ id: String) -> String {
        thread(instance, feature, id) + "/messages"
    }

    public static func folders(_ instance: NylaInstance) -> String { base(instance, .workspace) + "/folders" }
    public static func files(_ instance: NylaInstance) -> String { base(instance, .workspace) + "/files" }
    public static func upload(_ instance: NylaInstance) -> String { files(instance) + "/upload" }
    public static func file(_ instance: NylaInstance, _ id: String) -> String { files(instance) + "/" + escape(id) }
    public static func fileContent(_ instance: NylaInstance, _ id: String) -> String { file(instance, id) + "/content" }

    public static func pendingEdits(_ instance: NylaInstance) -> String { base(instance, .workspace) + "/pending-edits" }

    /// `…/pending-edits/{id}/accept`, or `…/pending-edits/accept-all` when id is nil.
    public static func decide(_ instance: NylaInstance, edit id: String?, accept: Bool) -> String {
        let verb = accept ? "accept" : "reject"
        guard let id else { return pendingEdits(instance) + "/\(verb)-all" }
        return pendingEdits(instance) + "/" + escape(id) + "/" + verb
    }

    static func escape(_ segment: String) -> String {
        segment.percentEncoded(keeping: "-._~")
    }


    // MARK: Request bodies

    /// `application/x-www-form-urlencoded`, as FastAPI's OAuth2 password form reads it.
    public static func loginForm(user: String, password: String) -> [UInt8] {
        Array(("username=" + escape(user) + "&password=" + escape(password)).utf8)
    }

    public struct StreamOptions: Sendable, Equatable {
        public var fileIDs: [String] = []
        public var dataSourceIDs: [String] = []
        public var language: String
        public var providers: [String] = []
    }

    public static func streamBody(prompt: String, workflowID: String?, feature: NylaFeature,
                                  options: StreamOptions) -> JSON {
        var body: [String: JSON] = [
            "prompt": .string(prompt),
            "workflowId": JSON(workflowID),
            "userLanguage": .string(options.language),
            "fileIds": .array(options.fileIDs.map(JSON.string)),
        ]
        if feature == .workspace {
            body["dataSourceIds"] = .array(options.dataSourceIDs.map(JSON.string))
            body["featureDataSourceIds"] = []
            body["allowedProviders"] = .array(options.providers.map(JSON.string))
        }
        return .object(body)
    }

    public static func threadBody(name: String) -> JSON { ["name": .string(name)] }

    /// The multipart fields of an upload.
    public static let uploadFileField = "file"
    public static let uploadFolderField = "folderId"

    /// `page` (from 1) and `pageSize` of a paginated list. hark asks for 100 to need few
    /// requests; the gateway decides how many it serves.
    public static func pageQuery(_ page: Int) -> [(String, String)] { [("page", String(page)), ("pageSize", "100")] }

    /// A list longer than this many pages is cut (100 pages of 25 are 2,500 items).
    public static let maxPages = 100

    // MARK: Reading answers

    /// The list in an answer: a bare array, or the `items` of a FastAPI PaginatedResponse
    /// (or `data`, `results`, or a list under a named key).
    public static func items(_ json: JSON, key: String? = nil) -> [JSON] {
        if let array = json.array { return array }
        for name in ["items", "data", "results"] + (key.map { [$0] } ?? []) {
            if let array = json[name]?.array { return array }
        }
        return []
    }

    /// `totalPages` of a paginated answer, or 1.
    public static func pageCount(_ json: JSON) -> Int { json["totalPages"]?.int ?? 1 }

    static func first(_ json: JSON, _ keys: [String]) -> String? {
        for key in keys {
            if let text = json[key]?.text, !text.isEmpty { return text }
        }
        return nil
    }

    /// An I18nLabel `{de, en, fr}` or a plain string, in the wanted language.
    static func label(_ json: JSON?, language: String) -> String? {
        guard let json else { return nil }
        if let text = json.string { return text }
        for key in [language, "en", "de", "fr"] {
            if let text = json[key]?.string, !text.isEmpty { return text }
        }
        return nil
    }

    public static func mandates(_ json: JSON, language: String) -> [NylaMandate] {
        items(json, key: "mandates").compactMap { mandate in
            guard let id = first(mandate, ["id", "mandateId"]) else { return nil }
            let name = first(mandate, ["name", "label", "code"]) ?? id
            let features: [NylaFeatureGroup] = (mandate["features"]?.array ?? []).compactMap { feature in
                guard let code = first(feature, ["code", "featureCode"]) else { return nil }
                let instances: [NylaInstance] = (feature["instances"]?.array ?? []).compactMap { instance in
                    guard let instanceID = first(instance, ["id", "instanceId"]) else { return nil }
                    return NylaInstance(id: instanceID, featureCode: first(instance, ["featureCode"]) ?? code,
                                        mandateID: first(instance, ["mandateId"]) ?? id,
                                        mandateName: first(instance, ["mandateName"]) ?? name,
                                        label: label(instance["instanceLabel"], language: language)
                                            ?? first(instance, ["label", "name"]) ?? instanceID)
                }
                return NylaFeatureGroup(code: code, label: label(feature["label"], language: language) ?? code,
                                        instances: instances)
            }
            return NylaMandate(id: id, name: name, features: features)
        }
    }

    /// A server-side thread: a workspace workflow or a chatbot thread.
    public static func thread(_ json: JSON) -> RemoteThread? {
        guard let id = first(json, ["id", "workflowId", "threadId"]) else { return nil }
        return RemoteThread(id: id, title: first(json, ["name", "title", "label"]) ?? "untitled",
                            updatedAt: date(json["updatedAt"] ?? json["lastActivity"] ?? json["createdAt"]))
    }

    public static func message(_ json: JSON) -> Turn? {
        guard let text = first(json, ["content", "message", "text"]) else { return nil }
        let role = (first(json, ["role", "sender", "type"]) ?? "assistant").lowercased()
        return Turn(role: ["user", "human"].contains(role) ? .user : .assistant, text: text,
                    createdAt: date(json["createdAt"] ?? json["timestamp"]))
    }

    public static func file(_ json: JSON) -> NylaFile? {
        guard let id = first(json, ["id", "fileId"]) else { return nil }
        return NylaFile(id: id, name: first(json, ["fileName", "name", "filename"]) ?? id,
                        mimeType: first(json, ["mimeType", "contentType"]),
                        size: (json["fileSize"] ?? json["size"])?.int,
                        folderID: first(json, ["folderId"]), createdAt: date(json["createdAt"]))
    }

    public static func folder(_ json: JSON) -> NylaFolder? {
        guard let id = first(json, ["id", "folderId"]) else { return nil }
        return NylaFolder(id: id, name: first(json, ["name", "folderName"]) ?? id, parentID: first(json, ["parentId"]))
    }

    public static func pendingEdit(_ json: JSON) -> NylaPendingEdit? {
        guard let id = first(json, ["id", "editId"]) else { return nil }
        if let status = json["status"]?.string, status != "pending" { return nil }
        return NylaPendingEdit(id: id, fileID: first(json, ["fileId"]),
                               fileName: first(json, ["fileName", "filePath", "path"]) ?? "file",
                               description: first(json, ["description", "summary"]),
                               oldContent: (json["oldContent"] ?? json["originalContent"])?.string,
                               newContent: (json["newContent"] ?? json["proposedContent"])?.string,
                               diff: json["diff"]?.string)
    }

    public static func prompt(_ json: JSON) -> NylaPrompt? {
        guard let content = first(json, ["content", "prompt", "text"]) else { return nil }
        let id = first(json, ["id"]) ?? ""
        return NylaPrompt(id: id, name: first(json, ["name", "title"]) ?? id, content: content,
                          description: first(json, ["description"]))
    }

    /// Who is logged in, for one line of output.
    public static func userName(_ json: JSON) -> String? {
        first(json["user"] ?? json, ["fullName", "displayName", "name", "username", "email"])
    }

    /// A chat stream event. The type is the SSE `event:` field when it names one, else the
    /// `type` in the JSON (as the web app's fetch-based client reads it). Any event may carry
    /// the `workflowId` it belongs to.
    public static func event(sseType: String, data: JSON) -> (event: NylaEvent, workflowID: String?) {
        let type = sseType != "message" ? sseType : (data["type"]?.string ?? "message")
        let workflowID = first(data, ["workflowId"]) ?? (type == "workflowUpdated" ? first(data["workflow"] ?? .null, ["id"]) : nil)
        let body = data["data"]?.object != nil ? data["data"]! : data
        func text(_ keys: [String]) -> String? { first(body, keys) }
        switch type {
        case "chunk":
            return (.chunk(body.string ?? text(["content", "chunk", "text", "delta", "data"]) ?? ""), workflowID)
        case "message":
            let message = body["message"]?.object != nil ? body["message"]! : body
            return (.message(role: first(message, ["role"]) ?? "assistant",
                             text: message.string ?? first(message, ["content", "text", "message"]) ?? "",
                             id: first(message, ["id", "messageId"])), workflowID)
        case "status":
            return (.status(text(["message", "status", "label", "text"]) ?? ""), workflowID)
        case "tool_activity":
            return (.toolActivity(tool: text(["tool", "toolName", "name"]) ?? "tool", state: text(["status", "state"]),
                                  message: text(["message", "label"])), workflowID)
        case "agent_progress":
            return (.agentProgress(agent: text(["agent", "agentName"]), message: text(["message", "status", "label"]),
                                   step: (body["step"] ?? body["current"])?.int,
                                   total: (body["totalSteps"] ?? body["total"])?.int), workflowID)
        case "agent_summary":
            return (.agentSummary(agent: text(["agent", "agentName"]), summary: text(["summary", "message", "content"]) ?? ""),
                    workflowID)
        case "fileCreated":
            let file = self.file(body["file"] ?? body) ?? NylaFile(id: "?", name: text(["fileName", "name"]) ?? "a file")
            return (.fileCreated(file), workflowID)
        case "dataSourceAccess":
            let source = body["dataSource"] ?? body
            return (.dataSourceAccess(name: first(source, ["name", "label", "id", "dataSourceId"]) ?? "a data source",
                                      access: text(["access", "action", "operation"])), workflowID)
        case "workflowUpdated":
            let workflow = body["workflow"] ?? body
            return (.workflowUpdated(id: first(workflow, ["id", "workflowId"]), name: first(workflow, ["name", "title"])),
                    workflowID)
        case "complete":
            return (.complete(messageID: text(["messageId"])), workflowID)
        case "stopped":
            return (.stopped, workflowID)
        case "error":
            let detail = body["detail"].flatMap { ServerMessage.describe($0) }
            return (.error(text(["message", "error"]) ?? detail ?? "the agent failed"), workflowID)
        default:
            return (.other(type), workflowID)
        }
    }

    /// ISO 8601 (with or without fractions and zone) or epoch seconds or milliseconds.
    public static func date(_ json: JSON?) -> Date? {
        guard let json else { return nil }
        if let number = json.double { return Date(timeIntervalSince1970: number > 1e11 ? number / 1000 : number) }
        guard let text = json.string else { return nil }
        return ISODate.parse(text)
    }
}

/// ISO 8601 timestamps without Foundation's formatters (which load ICU).
enum ISODate {
    static func parse(_ text: String) -> Date? {
        let scalars = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= scalars.count else { return nil }
            var value = 0
            for byte in scalars[start..<start + count] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2) else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        var index = 10
        if index < scalars.count, scalars[index] == UInt8(ascii: "T") || scalars[index] == UInt8(ascii: " ") {
            guard let hour = number(11, 2), let minute = number(14, 2) else { return nil }
            parts.tm_hour = Int32(hour)
            parts.tm_min = Int32(minute)
            parts.tm_sec = Int32(number(17, 2) ?? 0)
            index = number(17, 2) == nil ? 16 : 19
        }
        var fraction = 0.0
        if index < scalars.count, scalars[index] == UInt8(ascii: ".") {
            var scale = 0.1
            index += 1
            while index < scalars.count, (48...57).contains(scalars[index]) {
                fraction += Double(scalars[index] - 48) * scale
                scale /= 10
                index += 1
            }
        }
        var offset = 0
        if index < scalars.count, scalars[index] == UInt8(ascii: "+") || scalars[index] == UInt8(ascii: "-") {
            let sign = scalars[index] == UInt8(ascii: "-") ? -1 : 1
            guard let hours = number(index + 1, 2) else { return nil }
            let minutes = number(index + 4, 2) ?? number(index + 3, 2) ?? 0
            offset = sign * (hours * 3600 + minutes * 60)
        }
        let seconds = timegm(&parts)
        return Date(timeIntervalSince1970: Double(seconds - offset) + fraction)
    }
}
