import Foundation
import HarkCore

/// The state of the loopback Jenkins: jobs in folders, their builds and logs, the queue.
/// Rendered to JSON the way Jenkins' remote API renders it (`_class` names included).
public struct TestJenkinsParameter: Sendable {
    public var name: String
    public var type: String
    public var description: String
    public var defaultValue: JSON?
    public var choices: [String]

    public static func string(_ name: String, default value: String = "", description: String = "") -> Self {
        Self(name: name, type: "StringParameterDefinition", description: description, defaultValue: .string(value), choices: [])
    }

    public static func choice(_ name: String, _ choices: [String], description: String = "") -> Self {
        Self(name: name, type: "ChoiceParameterDefinition", description: description,
             defaultValue: choices.first.map(JSON.string), choices: choices)
    }

    public static func boolean(_ name: String, default value: Bool = false, description: String = "") -> Self {
        Self(name: name, type: "BooleanParameterDefinition", description: description, defaultValue: .bool(value), choices: [])
    }

    public static func password(_ name: String, description: String = "") -> Self {
        Self(name: name, type: "PasswordParameterDefinition", description: description, defaultValue: .string(""), choices: [])
    }

    var json: JSON {
        var object: [String: JSON] = ["_class": .string("hudson.model." + type), "name": .string(name), "type": .string(type),
                                      "description": .string(description)]
        if let defaultValue {
            let valueClass = type.replacingOccurrences(of: "Definition", with: "Value").replacingOccurrences(of: "Choice", with: "String")
            // Jenkins does not export a password's default.
            object["defaultParameterValue"] = ["_class": .string("hudson.model." + valueClass),
                                               "value": type.hasPrefix("Password") ? .null : defaultValue]
        }
        if !choices.isEmpty { object["choices"] = .array(choices.map(JSON.string)) }
        return .object(object)
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

    init(number: Int, queueID: Int, log: String, result: String?, timestamp: Double, parameters: [String: String]) {
        self.number = number
        self.queueID = queueID
        self.log = Array(log.utf8)
        self.result = result
        self.timestamp = timestamp
        self.parameters = parameters
    }

    var building: Bool { result == nil }

    func json(jobURL: String) -> JSON {
        ["_class": "hudson.model.FreeStyleBuild", "number": .number(Double(number)), "result": JSON(result),
         "building": .bool(building), "inProgress": .bool(building), "duration": .number(duration),
         "estimatedDuration": 60000, "timestamp": .number(timestamp), "queueId": .number(Double(queueID)),
         "url": .string(jobURL + "\(number)/")]
    }
}

final class TestJenkinsJob {
    let path: [String]
    var description: String
    var parameters: [TestJenkinsParameter]
    var disabled: Bool
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
        if disabled { return "disabled" }
        let finished = builds.last { !$0.building }
        var color: String
        switch finished?.result {
        case "SUCCESS": color = "blue"
        case "FAILURE": color = "red"
        case "UNSTABLE": color = "yellow"
        case "ABORTED": color = "aborted"
        case nil: color = "notbuilt"
        default: color = "grey"
        }
        if builds.contains(where: \.building) { color += "_anime" }
        return color
    }

    func json(root: String, inQueue: Bool) -> JSON {
        let url = root + path.map { "/job/" + $0 }.joined() + "/"
        var properties: [JSON] = [["_class": "jenkins.model.BuildDiscarderProperty"]]
        if !parameters.isEmpty {
            properties.append(["_class": "hudson.model.ParametersDefinitionProperty",
                               "parameterDefinitions": .array(parameters.map(\.json))])
        }
        return ["_class": "hudson.model.FreeStyleProject", "name": .string(path.last ?? ""), "fullName": .string(fullName),
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
        let jobURL = root + job.map { "/job/" + $0 }.joined() + "/"
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
