/// Every Jenkins endpoint and `tree` query hark uses, in one place (PROTOCOLS.md, Jenkins).
/// Paths are relative to the server's root URL, which may carry a context path (`/jenkins`).
enum JenkinsAPI {
    /// Folders nest; a tree query cannot recurse, so it spells out this many levels.
    static let folderDepth = 5

    static var jobTree: String {
        func level(_ depth: Int) -> String {
            "name,color,_class" + (depth > 0 ? ",jobs[" + level(depth - 1) + "]" : "")
        }
        return "/api/json?tree=" + encodeTree("jobs[" + level(folderDepth) + "]")
    }

    static func job(_ path: JobPath, builds: Int = 10) -> String {
        let tree = "name,fullName,description,color,buildable,inQueue,nextBuildNumber,"
            + "property[parameterDefinitions[name,type,description,defaultParameterValue[value],choices]],"
            + "builds[number,result,building,duration,estimatedDuration,timestamp,queueId]{0,\(builds)}"
        return path.urlPath + "api/json?tree=" + encodeTree(tree)
    }

    /// Recent builds with the queue item each came from, to find a build whose queue item
    /// has expired.
    static func buildsByQueueID(_ path: JobPath) -> String {
        path.urlPath + "api/json?tree=" + encodeTree("builds[number,queueId]{0,50}")
    }

    static let buildFields = "number,result,building,inProgress,duration,estimatedDuration,timestamp,url,queueId"

    /// `number` or a permalink such as `lastBuild`.
    static func build(_ path: JobPath, _ reference: String) -> String {
        path.urlPath + reference + "/api/json?tree=" + encodeTree(buildFields)
    }

    static func progressiveText(_ path: JobPath, _ number: Int, start: Int) -> String {
        path.urlPath + "\(number)/logText/progressiveText?start=\(start)"
    }

    static func trigger(_ path: JobPath, parameterized: Bool) -> String {
        path.urlPath + (parameterized ? "buildWithParameters" : "build")
    }

    static func stop(_ path: JobPath, _ number: Int) -> String { path.urlPath + "\(number)/stop" }

    static func queueItem(_ id: Int) -> String { "/queue/item/\(id)/api/json" }

    static var queue: String {
        "/queue/api/json?tree=" + encodeTree("items[id,why,blocked,buildable,stuck,inQueueSince,task[name,url]]")
    }

    static func cancelQueueItem(_ id: Int) -> String { "/queue/cancelItem?id=\(id)" }

    static let whoAmI = "/whoAmI/api/json"
    static let crumbIssuer = "/crumbIssuer/api/json"

    /// Brackets, braces and commas percent-encoded: curl sends them as given, and proxies and
    /// Jetty's stricter modes reject them raw.
    static func encodeTree(_ tree: String) -> String {
        var out = ""
        for character in tree {
            switch character {
            case "[": out += "%5B"
            case "]": out += "%5D"
            case "{": out += "%7B"
            case "}": out += "%7D"
            case ",": out += "%2C"
            default: out.append(character)
            }
        }
        return out
    }
}
