import FoundationEssentials
import Glibc

/// The Jenkins objects hark reads, parsed from the JSON API. Parsing is lenient: a field a
/// server leaves out becomes nil rather than an error, since `tree` queries and plugins vary.

/// One job in the job list (folders are walked, not listed).
public struct JobSummary: Sendable, Equatable {
    public var path: JobPath
    public var color: String

    public var status: BuildStatus { BuildStatus(color: color) }
    public var isBuilding: Bool { BuildStatus.isBuilding(color: color) }

    /// Flattens the `jobs` tree: anything holding `jobs` is a folder (a Folder, an
    /// organisation, a multibranch project) and contributes its children as `folder/child`.
    static func flatten(_ json: JSON, under parent: [String] = []) -> [JobSummary] {
        var found: [JobSummary] = []
        for item in json["jobs"]?.array ?? [] {
            guard let name = item["name"]?.string else { continue }
            let path = parent + [name]
            if item["jobs"]?.array != nil {
                found += flatten(item, under: path)
            } else {
                found.append(JobSummary(path: JobPath(path), color: item["color"]?.string ?? ""))
            }
        }
        return found
    }
}

/// A build parameter as the job defines it.
public struct ParameterDefinition: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case string, text, boolean, choice, password, file, run, other
    }

    public var name: String
    public var kind: Kind
    /// The Jenkins type name, for types hark does not know (`GitParameterDefinition`).
    public var typeName: String
    public var description: String?
    /// The default as text (`true`/`false` for booleans); nil when the job has none.
    public var defaultValue: String?
    public var choices: [String]

    init?(_ json: JSON) {
        guard let name = json["name"]?.string else { return nil }
        self.name = name
        typeName = json["type"]?.string ?? json["_class"]?.string?.split(separator: ".").last.map(String.init) ?? "?"
        choices = json["choices"]?.array?.compactMap(\.text) ?? []
        switch typeName {
        case "StringParameterDefinition": kind = .string
        case "TextParameterDefinition": kind = .text
        case "BooleanParameterDefinition": kind = .boolean
        case "ChoiceParameterDefinition": kind = .choice
        case "PasswordParameterDefinition": kind = .password
        case "FileParameterDefinition": kind = .file
        case "RunParameterDefinition": kind = .run
        default: kind = choices.isEmpty ? .other : .choice
        }
        let description = json["description"]?.string?.trimmed
        self.description = description?.isEmpty == false ? description : nil
        // A password's default is never shown; only whether there is one matters.
        defaultValue = json["defaultParameterValue"]?["value"]?.text
    }

    /// A short name for the type: `string`, `choice`…, or Jenkins' own for the others.
    public var typeLabel: String {
        kind == .other ? typeName.replacingOccurrences(of: "ParameterDefinition", with: "") : kind.rawValue
    }

    /// Must be given (or asked): no default, or an empty one where a value is free text.
    public var isRequired: Bool {
        switch kind {
        case .boolean, .choice: return false
        case .string, .text, .password, .run, .other: return defaultValue?.isEmpty ?? true
        case .file: return false
        }
    }
}

/// A build's state.
public struct BuildInfo: Sendable, Equatable {
    public var number: Int
    public var result: String?
    public var building: Bool
    /// Milliseconds; 0 while running.
    public var duration: Double
    public var estimatedDuration: Double
    /// Milliseconds since 1970.
    public var timestamp: Double
    public var queueID: Int?

    init?(_ json: JSON) {
        guard let number = json["number"]?.int else { return nil }
        self.number = number
        result = json["result"]?.string
        building = json["building"]?.bool ?? json["inProgress"]?.bool ?? false
        duration = json["duration"]?.double ?? 0
        estimatedDuration = json["estimatedDuration"]?.double ?? -1
        timestamp = json["timestamp"]?.double ?? 0
        queueID = json["queueId"]?.int
    }

    public var status: BuildStatus { result.map(BuildStatus.init(result:)) ?? .unknown }
    public var startedAt: Date { Date(timeIntervalSince1970: timestamp / 1000) }
    public var isRunning: Bool { building || result == nil }
}

/// A job with its parameters and recent builds (`/job NAME`).
public struct JobDetails: Sendable, Equatable {
    public var path: JobPath
    public var description: String?
    public var color: String
    public var buildable: Bool
    public var inQueue: Bool
    public var parameters: [ParameterDefinition]
    /// Newest first.
    public var builds: [BuildInfo]

    init(path: JobPath, _ json: JSON) {
        self.path = path
        let description = json["description"]?.string.map(JenkinsText.plain) ?? ""
        self.description = description.isEmpty ? nil : description
        color = json["color"]?.string ?? ""
        buildable = json["buildable"]?.bool ?? true
        inQueue = json["inQueue"]?.bool ?? false
        parameters = (json["property"]?.array ?? []).flatMap { property in
            (property["parameterDefinitions"]?.array ?? []).compactMap(ParameterDefinition.init)
        }
        builds = (json["builds"]?.array ?? []).compactMap(BuildInfo.init)
    }

    public var status: BuildStatus { buildable ? BuildStatus(color: color) : .disabled }
    public var isBuilding: Bool { BuildStatus.isBuilding(color: color) || builds.first?.isRunning == true }
}

/// An item of the build queue: waiting, blocked, buildable, or left (started or cancelled).
public struct QueueItem: Sendable, Equatable {
    public var id: Int
    public var why: String?
    public var blocked: Bool
    public var cancelled: Bool
    public var stuck: Bool
    /// Set once the item has left the queue and its build started.
    public var buildNumber: Int?
    /// The job it builds, from `task.url`, or its bare name.
    public var job: String
    public var inQueueSince: Double

    init?(_ json: JSON) {
        guard let id = json["id"]?.int else { return nil }
        self.id = id
        why = json["why"]?.string
        blocked = json["blocked"]?.bool ?? false
        cancelled = json["cancelled"]?.bool ?? false
        stuck = json["stuck"]?.bool ?? false
        buildNumber = json["executable"]?["number"]?.int
        let task = json["task"]
        job = task?["url"]?.string.flatMap(JobPath.init(url:))?.description ?? task?["name"]?.string ?? "?"
        inQueueSince = json["inQueueSince"]?.double ?? 0
    }

    /// "waiting", "blocked" or "stuck", for the queue line.
    public var state: String { stuck ? "stuck" : (blocked ? "blocked" : "waiting") }
}

/// Text from Jenkins fit for one terminal line: descriptions are often HTML.
enum JenkinsText {
    static func plain(_ html: String) -> String {
        var text = html.replacingOccurrences(of: "<br>", with: " ", options: .caseInsensitive)
            .replacingOccurrences(of: "<br/>", with: " ", options: .caseInsensitive)
        while let open = text.range(of: "<"), let close = text.range(of: ">", range: open.upperBound..<text.endIndex) {
            text.replaceSubrange(open.lowerBound..<close.upperBound, with: "")
        }
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        let words = text.split(whereSeparator: { $0.isWhitespace })
        return words.joined(separator: " ")
    }
}
