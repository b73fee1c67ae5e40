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
    /// The default as text (`true`/`false` for booleans, `job#12` for a run); nil when the job
    /// has none, or does not say (a password).
    public var defaultValue: String?
    /// Whether Jenkins exports a default at all.
    public var hasDefault: Bool
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
        // As Jenkins exports them (ParameterDefinition.getDefaultParameterValue): a value
        // object, or null when there is nothing to fall back on (a run parameter whose job has
        // no build yet). A password's value is never exported (PasswordParameterValue exports
        // only its name), so only whether it has one is known. A run parameter's value is
        // `jobName` and `number` (RunParameterValue), sent back as JOB#N.
        let fallback = json["defaultParameterValue"]
        hasDefault = fallback?.object != nil
        if let job = fallback?["jobName"]?.string, let number = fallback?["number"]?.text {
            defaultValue = "\(job)#\(number)"
        } else {
            defaultValue = fallback?["value"]?.text
        }
    }

    /// A short name for the type: `string`, `choice`…, or Jenkins' own for the others.
    public var typeLabel: String {
        kind == .other ? typeName.replacingOccurrences(of: "ParameterDefinition", with: "") : kind.rawValue
    }

    /// Must be given (or asked): Jenkins has no default to use. An empty string is a default
    /// like any other, and a password's stored default is used when none is sent.
    public var isRequired: Bool {
        switch kind {
        case .boolean, .choice, .password, .file: return false
        case .string, .text, .run, .other: return !hasDefault
        }
    }

    /// Asked in the shell though not required, an empty answer keeping Jenkins' default: a
    /// password (its default cannot be seen) and free text whose default is empty.
    public var isAskedInShell: Bool {
        switch kind {
        case .password: return true
        case .string, .text: return defaultValue?.isEmpty ?? true
        default: return isRequired
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
    /// `org.jenkinsci.plugins.workflow.job.WorkflowRun` for a pipeline.
    public var className: String
    /// Archived files, by their path below the build's artifact folder.
    public var artifacts: [String]
    /// From the junit plugin's TestResultAction, when the build recorded tests.
    public var tests: TestCounts?

    init?(_ json: JSON) {
        guard let number = json["number"]?.int else { return nil }
        self.number = number
        result = json["result"]?.string
        building = json["building"]?.bool ?? json["inProgress"]?.bool ?? false
        duration = json["duration"]?.double ?? 0
        estimatedDuration = json["estimatedDuration"]?.double ?? -1
        timestamp = json["timestamp"]?.double ?? 0
        queueID = json["queueId"]?.int
        className = json["_class"]?.string ?? ""
        artifacts = (json["artifacts"]?.array ?? []).compactMap { $0["relativePath"]?.string }
        tests = (json["actions"]?.array ?? []).lazy.compactMap(TestCounts.init(action:)).first
    }

    /// A Pipeline run, with stages and input steps (pipeline-stage-view answers for it).
    public var isPipeline: Bool { className.hasSuffix("WorkflowRun") }

    public var status: BuildStatus { result.map(BuildStatus.init(result:)) ?? .unknown }
    /// nil when Jenkins gave no time (0, or the field missing), never the epoch.
    public var startedAt: Date? { timestamp > 0 ? Date(timeIntervalSince1970: timestamp / 1000) : nil }
    public var isRunning: Bool { building || result == nil }
}

/// Passed, failed and skipped tests of one build.
public struct TestCounts: Sendable, Equatable {
    public var failed: Int
    public var skipped: Int
    public var total: Int

    public var passed: Int { total - failed - skipped }

    /// A build's TestResultAction (`failCount`, `skipCount`, `totalCount`); nil for other actions.
    init?(action json: JSON) {
        guard let total = json["totalCount"]?.int, let failed = json["failCount"]?.int else { return nil }
        self.total = total
        self.failed = failed
        skipped = json["skipCount"]?.int ?? 0
    }

    public init(failed: Int, skipped: Int, total: Int) {
        self.failed = failed
        self.skipped = skipped
        self.total = total
    }

    /// "2 failed, 40 passed, 1 skipped".
    public var summary: String {
        var parts = [String]()
        if failed > 0 { parts.append("\(failed) failed") }
        parts.append("\(passed) passed")
        if skipped > 0 { parts.append("\(skipped) skipped") }
        return parts.joined(separator: ", ")
    }
}

/// What an item of the job tree is: something to build, or a container of jobs.
public enum ItemKind: Sendable, Equatable {
    case job
    /// A folder (cloudbees-folder) or an organisation folder: its jobs are built one by one.
    case folder
    /// A multibranch project (branch-api): one job per branch; building the project itself
    /// would only scan for branches (ComputedFolder.doBuild).
    case multibranch

    init(className: String, hasJobs: Bool) {
        if className.hasSuffix("MultiBranchProject") { self = .multibranch } else { self = hasJobs ? .folder : .job }
    }
}

/// A job with its parameters and recent builds (`/job NAME`).
public struct JobDetails: Sendable, Equatable {
    public var path: JobPath
    public var kind: ItemKind
    /// A folder's or multibranch project's items (branch names as Jenkins encodes them).
    public var children: [String]
    public var description: String?
    public var color: String
    public var buildable: Bool
    public var inQueue: Bool
    public var parameters: [ParameterDefinition]
    /// Newest first.
    public var builds: [BuildInfo]

    init(path: JobPath, _ json: JSON) {
        self.path = path
        let items = json["jobs"]?.array
        kind = ItemKind(className: json["_class"]?.string ?? "", hasJobs: items != nil)
        children = (items ?? []).compactMap { $0["name"]?.string }
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
