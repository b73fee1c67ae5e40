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

    /// A job, or a folder or multibranch project (`_class` tells; `jobs` are its children).
    static func job(_ path: JobPath, builds: Int = 10) -> String {
        let tree = "_class,name,fullName,description,color,buildable,inQueue,nextBuildNumber,jobs[name,_class],"
            + "property[parameterDefinitions[name,type,description,defaultParameterValue[value,jobName,number],choices]],"
            + "builds[number,result,building,duration,estimatedDuration,timestamp,queueId]{0,\(builds)}"
        return path.urlPath + "api/json?tree=" + encodeTree(tree)
    }

    /// Recent builds with the queue item each came from, to find a build whose queue item
    /// has expired.
    static func buildsByQueueID(_ path: JobPath) -> String {
        path.urlPath + "api/json?tree=" + encodeTree("builds[number,queueId]{0,50}")
    }

    /// The test counts come from the build's TestResultAction (junit plugin), when it has one.
    static let buildFields = "_class,number,result,building,inProgress,duration,estimatedDuration,timestamp,url,queueId,"
        + "artifacts[fileName,relativePath],actions[_class,failCount,skipCount,totalCount]"

    /// `number` or a permalink such as `lastBuild`.
    static func build(_ path: JobPath, _ reference: String) -> String {
        path.urlPath + reference + "/api/json?tree=" + encodeTree(buildFields)
    }

    static func progressiveText(_ path: JobPath, _ number: Int, start: Int) -> String {
        path.urlPath + "\(number)/logText/progressiveText?start=\(start)"
    }

    /// pipeline-stage-view's REST API (rest-api/README.md): the run's status and its stages.
    static func describe(_ path: JobPath, _ number: Int) -> String { path.urlPath + "\(number)/wfapi/describe" }

    /// The input steps a paused pipeline waits on (`id`, `message`, `proceedText`, `inputs`).
    static func pendingInputs(_ path: JobPath, _ number: Int) -> String {
        path.urlPath + "\(number)/wfapi/pendingInputActions"
    }

    /// pipeline-input-step's InputStepExecution: `proceedEmpty` for an input without
    /// parameters, `proceed` with the form field `json` for one with, `abort`. All POST.
    static func input(_ path: JobPath, _ number: Int, _ id: String, _ action: String) -> String {
        path.urlPath + "\(number)/input/" + JobPath.encode(id) + "/" + action
    }

    /// An archived file: `…/N/artifact/RELATIVE/PATH` (Run.getArtifactsDir, served by DirectoryBrowserSupport).
    static func artifact(_ path: JobPath, _ number: Int, _ relativePath: String) -> String {
        path.urlPath + "\(number)/artifact/" + relativePath.split(separator: "/").map { JobPath.encode(String($0)) }.joined(separator: "/")
    }

    /// The junit plugin's TestResult: counts, and the cases of each suite with their status.
    static func testReport(_ path: JobPath, _ number: Int) -> String {
        path.urlPath + "\(number)/testReport/api/json?tree="
            + encodeTree("failCount,passCount,skipCount,suites[cases[className,name,status,errorDetails]]")
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
