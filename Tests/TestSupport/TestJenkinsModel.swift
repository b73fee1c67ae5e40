import Foundation
import HarkCore

/// The state of the loopback Jenkins: jobs in folders, their builds and logs, the queue.
/// Rendered to JSON the way Jenkins' remote API renders it (`_class` names included).
public struct TestJenkinsParameter: Sendable {
    public var name: String
    public var type: String
    public var description: String
    /// The exported `defaultParameterValue`: an object, or null.
    public var defaultValue: JSON
    public var choices: [String]
    var extra: [String: JSON] = [:]

    public static func string(_ name: String, default value: String = "", description: String = "") -> Self {
        Self(name: name, type: "StringParameterDefinition", description: description,
             defaultValue: valueObject(name, "StringParameterValue", .string(value)), choices: [])
    }

    public static func choice(_ name: String, _ choices: [String], description: String = "") -> Self {
        Self(name: name, type: "ChoiceParameterDefinition", description: description,
             defaultValue: choices.first.map { valueObject(name, "StringParameterValue", .string($0)) } ?? .null, choices: choices)
    }

    public static func boolean(_ name: String, default flag: Bool = false, description: String = "") -> Self {
        Self(name: name, type: "BooleanParameterDefinition", description: description,
             defaultValue: valueObject(name, "BooleanParameterValue", .bool(flag)), choices: [])
    }

    /// jenkinsci/jenkins core/src/main/java/hudson/model/PasswordParameterValue.java: the value
    /// is a Secret with no @Exported getter, so a password's default exports only its name
    /// (`{"_class":"hudson.model.PasswordParameterValue","name":"TOKEN"}`), set or not.
    public static func password(_ name: String, description: String = "") -> Self {
        Self(name: name, type: "PasswordParameterDefinition", description: description,
             defaultValue: ["_class": "hudson.model.PasswordParameterValue", "name": .string(name)], choices: [])
    }

    /// core/src/main/java/hudson/model/RunParameterDefinition.java, getDefaultParameterValue:
    /// the project's last build as a RunParameterValue, which exports `jobName` and `number`
    /// (RunParameterValue.java: `@Exported public String getJobName()`, `getNumber()`, both
    /// strings) and no `value`; null when the project has no build.
    public static func run(_ name: String, project: String, lastBuild: Int?, description: String = "") -> Self {
        var parameter = Self(name: name, type: "RunParameterDefinition", description: description,
                             defaultValue: lastBuild.map { number in
                                 ["_class": "hudson.model.RunParameterValue", "name": .string(name), "jobName": .string(project),
                                  "number": .string(String(number))]
                             } ?? .null, choices: [])
        parameter.extra = ["projectName": .string(project), "filter": "ALL"]
        return parameter
    }

    static func valueObject(_ name: String, _ valueClass: String, _ value: JSON) -> JSON {
        ["_class": .string("hudson.model." + valueClass), "name": .string(name), "value": value]
    }

    var json: JSON {
        var object: [String: JSON] = ["_class": .string("hudson.model." + type), "name": .string(name), "type": .string(type),
                                      "description": .string(description), "defaultParameterValue": defaultValue]
        if !choices.isEmpty { object["choices"] = .array(choices.map(JSON.string)) }
        for (key, value) in extra { object[key] = value }
        return .object(object)
    }
}

/// A stage of a Pipeline run as pipeline-stage-view's StageNodeExt has it.
public struct TestJenkinsStage: Sendable {
    public var name: String
    /// StatusExt: SUCCESS, FAILED, IN_PROGRESS, PAUSED_PENDING_INPUT, ABORTED, UNSTABLE, NOT_EXECUTED.
    public var status: String
    public var durationMillis: Double

    public init(_ name: String, _ status: String, _ durationMillis: Double = 0) {
        self.name = name
        self.status = status
        self.durationMillis = durationMillis
    }
}

/// An input step a Pipeline waits on (pipeline-input-step's InputStepExecution).
public struct TestJenkinsInput: Sendable {
    public var id: String
    public var message: String
    public var ok: String
    public var parameters: [TestJenkinsParameter]
}

/// One test case of a junit report (CaseResult: className, name, status, errorDetails).
public struct TestJenkinsCase: Sendable {
    public var className: String
    public var name: String
    /// CaseResult.Status: PASSED, SKIPPED, FAILED, FIXED, REGRESSION.
    public var status: String
    public var errorDetails: String?

    public init(_ className: String, _ name: String, _ status: String, _ errorDetails: String? = nil) {
        self.className = className
        self.name = name
        self.status = status
        self.errorDetails = errorDetails
    }
}

final class TestJenkinsBuild {
    let number: Int
    let queueID: Int
    var log: [UInt8]
    var result: String?
    let timestamp: Double
    var duration: Double = 0
    let parameters: [String: String]
    var pipeline = false
    var stages: [TestJenkinsStage] = []
    var inputs: [TestJenkinsInput] = []
    /// What input steps were answered with: the form fields of each proceed.
    var inputAnswers: [[String: String]] = []
    var artifacts: [(path: String, bytes: [UInt8])] = []
    var tests: [TestJenkinsCase]?

    init(number: Int, queueID: Int, log: String, result: String?, timestamp: Double, parameters: [String: String]) {
        self.number = number
        self.queueID = queueID
        self.log = Array(log.utf8)
        self.result = result
        self.timestamp = timestamp
        self.parameters = parameters
    }

    var building: Bool { result == nil }

    /// Run's exported fields; `artifacts` as Run.Artifact exports them (displayPath, fileName,
    /// relativePath), and a junit TestResultAction among the actions (AbstractTestResultAction:
    /// failCount, skipCount, totalCount, urlName "testReport").
    func json(jobURL: String) -> JSON {
        var actions: [JSON] = [["_class": "hudson.model.CauseAction"], [:]]
        if let tests {
            actions.append(["_class": "hudson.tasks.junit.TestResultAction",
                            "failCount": JSON(tests.filter { ["FAILED", "REGRESSION"].contains($0.status) }.count),
                            "skipCount": JSON(tests.filter { $0.status == "SKIPPED" }.count), "totalCount": JSON(tests.count),
                            "urlName": "testReport"])
        }
        return ["_class": .string(pipeline ? "org.jenkinsci.plugins.workflow.job.WorkflowRun" : "hudson.model.FreeStyleBuild"),
                "number": .number(Double(number)), "result": JSON(result),
                "building": .bool(building), "inProgress": .bool(building), "duration": .number(duration),
                "estimatedDuration": 60000, "timestamp": .number(timestamp), "queueId": .number(Double(queueID)),
                "url": .string(jobURL + "\(number)/"), "actions": .array(actions),
                "artifacts": .array(artifacts.map { artifact in
                    ["displayPath": .string(artifact.path.split(separator: "/").last.map(String.init) ?? artifact.path),
                     "fileName": .string(artifact.path.split(separator: "/").last.map(String.init) ?? artifact.path),
                     "relativePath": .string(artifact.path)]
                })]
    }
}

final class TestJenkinsJob {
    let path: [String]
    var description: String
    var parameters: [TestJenkinsParameter]
    var disabled: Bool
    /// A Pipeline (WorkflowJob), whose builds are WorkflowRuns.
    var pipeline = false
    /// A colour a plugin's item reports (BallColor.GREY, "grey"), instead of the builds'.
    var fixedColor: String?
    /// The permission a build of this job is refused for (an AccessDeniedException3).
    var deniedPermission: String?
    /// Oldest first.
    var builds: [TestJenkinsBuild] = []
    var nextBuildNumber = 1

    init(path: [String], description: String, parameters: [TestJenkinsParameter], disabled: Bool) {
        self.path = path
        self.description = description
        self.parameters = parameters
        self.disabled = disabled
    }

    var fullName: String { path.joined(separator: "/") }

    var color: String {
        if let fixedColor { return fixedColor }
        if disabled { return "disabled" }
        let finished = builds.last { !$0.building }
        var color: String
        switch finished?.result {
        case "SUCCESS": color = "blue"
        case "FAILURE": color = "red"
        case "UNSTABLE": color = "yellow"
        case "ABORTED": color = "aborted"
        case "NOT_BUILT": color = "notbuilt"  // Result.NOT_BUILT's BallColor.NOTBUILT
        default: color = "notbuilt"  // Job.getIconColor with no build: BallColor.NOTBUILT
        }
        if builds.contains(where: \.building) { color += "_anime" }
        return color
    }

    var className: String { pipeline ? "org.jenkinsci.plugins.workflow.job.WorkflowJob" : "hudson.model.FreeStyleProject" }

    func json(root: String, inQueue: Bool) -> JSON {
        let url = root + TestJenkinsServer.jobURLPath(path) + "/"
        var properties: [JSON] = [["_class": "jenkins.model.BuildDiscarderProperty"]]
        if !parameters.isEmpty {
            properties.append(["_class": "hudson.model.ParametersDefinitionProperty",
                               "parameterDefinitions": .array(parameters.map(\.json))])
        }
        return ["_class": .string(className), "name": .string(path.last ?? ""), "fullName": .string(fullName),
                "description": .string(description), "color": .string(color), "buildable": .bool(!disabled),
                "inQueue": .bool(inQueue), "nextBuildNumber": .number(Double(nextBuildNumber)), "url": .string(url),
                "property": .array(properties),
                "builds": .array(builds.reversed().prefix(10).map { $0.json(jobURL: url) })]
    }
}

struct TestJenkinsQueueItem {
    let id: Int
    let job: [String]
    var why: String?
    var blocked = false
    var cancelled = false
    var buildNumber: Int?
    var expired = false
    var polls = 0
    let parameters: [String: String]
    let since: Double

    var hasLeft: Bool { cancelled || buildNumber != nil }

    func json(root: String, jobName: String) -> JSON {
        let jobURL = root + TestJenkinsServer.jobURLPath(job) + "/"
        var object: [String: JSON] = [
            "id": .number(Double(id)), "inQueueSince": .number(since), "stuck": false, "blocked": .bool(blocked),
            "buildable": .bool(!blocked && !hasLeft && why?.contains("quiet") != true),
            "params": .string(parameters.keys.sorted().map { "\n\($0)=\(parameters[$0]!)" }.joined()),
            "task": ["_class": "hudson.model.FreeStyleProject", "name": .string(jobName), "url": .string(jobURL)],
            "url": .string("queue/item/\(id)/"), "why": JSON(hasLeft ? nil : why),
        ]
        if hasLeft {
            object["_class"] = "hudson.model.Queue$LeftItem"
            object["cancelled"] = .bool(cancelled)
            object["executable"] = buildNumber.map { number in
                ["_class": "hudson.model.FreeStyleBuild", "number": .number(Double(number)), "url": .string(jobURL + "\(number)/")]
            } ?? .null
        } else {
            object["_class"] = .string(blocked ? "hudson.model.Queue$BlockedItem" : "hudson.model.Queue$WaitingItem")
        }
        return .object(object)
    }
}
