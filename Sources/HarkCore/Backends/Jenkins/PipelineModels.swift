import FoundationEssentials
import Glibc

/// A Pipeline run as pipeline-stage-view's REST API describes it (`wfapi/describe`, RunExt):
/// its status and its stages in order, each with a StatusExt status (SUCCESS, FAILED,
/// IN_PROGRESS, PAUSED_PENDING_INPUT, ABORTED, UNSTABLE, NOT_EXECUTED) and durations in ms.
public struct PipelineRun: Sendable, Equatable {
    public struct Stage: Sendable, Equatable {
        public var name: String
        public var status: String
        public var durationMillis: Double
    }

    public var status: String
    public var stages: [Stage]

    init(_ json: JSON) {
        status = json["status"]?.string ?? "?"
        stages = (json["stages"]?.array ?? []).compactMap { stage in
            guard let name = stage["name"]?.string else { return nil }
            return Stage(name: name, status: stage["status"]?.string ?? "?", durationMillis: stage["durationMillis"]?.double ?? 0)
        }
    }

    public var isPaused: Bool { status == "PAUSED_PENDING_INPUT" || stages.contains { $0.status == "PAUSED_PENDING_INPUT" } }

    /// A stage's mark, as the job list marks builds.
    static func mark(_ status: String) -> String {
        switch status {
        case "SUCCESS": return "✓"
        case "FAILED": return "✗"
        case "UNSTABLE": return "!"
        case "ABORTED": return "■"
        case "IN_PROGRESS": return "⟳"
        case "PAUSED_PENDING_INPUT": return "⏸"
        case "NOT_EXECUTED": return "·"
        default: return "?"
        }
    }

    /// One line for the console's live status: "stages ✓ Build 5.2s · ⟳ Test".
    public var line: String {
        "stages " + stages.map { stage in
            let time = ["IN_PROGRESS", "PAUSED_PENDING_INPUT", "NOT_EXECUTED"].contains(stage.status) ? ""
                : " " + TimeFormat.duration(stage.durationMillis / 1000)
            return "\(Self.mark(stage.status)) \(stage.name)\(time)"
        }.joined(separator: " · ")
    }

    /// What the line shows without the times, to tell a change of state from time passing.
    var state: String { stages.map { $0.name + ":" + $0.status }.joined(separator: ",") }
}

/// An input step a paused pipeline waits on (PendingInputActionsExt): its message, the
/// proceed button's text, and the parameters it asks for.
public struct PendingInput: Sendable, Equatable {
    public struct Parameter: Sendable, Equatable {
        public var name: String
        public var type: String
        public var defaultValue: String?
        public var choices: [String]
    }

    public var id: String
    public var message: String
    public var proceedText: String
    public var parameters: [Parameter]

    init?(_ json: JSON) {
        guard let id = json["id"]?.string else { return nil }
        self.id = id
        message = json["message"]?.string ?? "Input requested"
        proceedText = json["proceedText"]?.string ?? "Proceed"
        parameters = (json["inputs"]?.array ?? []).compactMap { input in
            guard let name = input["name"]?.string else { return nil }
            // InputParameterDefExt.toDefinitionMap: defaultVal, and choices for a choice.
            return Parameter(name: name, type: input["type"]?.string ?? "?", defaultValue: input["definition"]?["defaultVal"]?.text,
                             choices: input["definition"]?["choices"]?.array?.compactMap(\.text) ?? [])
        }
    }

    /// The form InputStepExecution.doProceed reads (`json` = {"parameter":[{name,value}…]}),
    /// from `KEY=VALUE` words; parameters left out take their defaults.
    func proceedForm(_ words: [String], job: JobPath) throws -> [(String, String)] {
        var values: [JSON] = []
        for word in words {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw HarkError.usage("expected KEY=VALUE, got \"\(word)\"")
            }
            let key = String(word[..<equals])
            let value = String(word[word.index(after: equals)...])
            guard let parameter = parameters.first(where: { $0.name.lowercased() == key.lowercased() }) else {
                let names = parameters.map(\.name)
                throw HarkError.usage("the input \"\(message)\" of \(job) asks for "
                    + (names.isEmpty ? "no parameters" : names.joined(separator: ", ")) + ", not \(key)")
            }
            if !parameter.choices.isEmpty, !parameter.choices.contains(value) {
                throw HarkError.usage("\(parameter.name) must be one of \(parameter.choices.joined(separator: ", ")), not \"\(value)\"")
            }
            let typed: JSON = parameter.type == "BooleanParameterDefinition"
                ? .bool(["true", "yes", "on", "1", "y"].contains(value.lowercased())) : .string(value)
            values.append(["name": .string(parameter.name), "value": typed])
        }
        for parameter in parameters where !values.contains(where: { $0["name"]?.string == parameter.name }) {
            guard let fallback = parameter.defaultValue else {
                throw HarkError.usage("the input \"\(message)\" of \(job) needs \(parameter.name); add \(parameter.name)=VALUE")
            }
            let typed: JSON = parameter.type == "BooleanParameterDefinition" ? .bool(fallback == "true") : .string(fallback)
            values.append(["name": .string(parameter.name), "value": typed])
        }
        return [("json", JSON.object(["parameter": .array(values)]).encoded())]
    }
}

/// The junit plugin's TestResult of one build: the counts and the failed cases.
public struct TestReport: Sendable, Equatable {
    public struct Failure: Sendable, Equatable {
        public var className: String
        public var name: String
        public var details: String?
    }

    public var counts: TestCounts
    /// FAILED and REGRESSION cases (CaseResult.Status), in report order.
    public var failures: [Failure]

    init(_ json: JSON) {
        let failed = json["failCount"]?.int ?? 0
        let skipped = json["skipCount"]?.int ?? 0
        counts = TestCounts(failed: failed, skipped: skipped, total: failed + skipped + (json["passCount"]?.int ?? 0))
        failures = (json["suites"]?.array ?? []).flatMap { $0["cases"]?.array ?? [] }.compactMap { testCase in
            guard ["FAILED", "REGRESSION"].contains(testCase["status"]?.string ?? "") else { return nil }
            let details = testCase["errorDetails"]?.string?.split(whereSeparator: \.isNewline).first.map(String.init)
            return Failure(className: testCase["className"]?.string ?? "", name: testCase["name"]?.string ?? "?", details: details)
        }
    }
}
