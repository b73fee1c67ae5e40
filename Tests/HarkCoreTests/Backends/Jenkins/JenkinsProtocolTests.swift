import Foundation
import Testing
@testable import HarkCore

/// The Jenkins wire shapes hark reads, without a server.
@Suite struct JenkinsProtocolTests {
    static func head(_ headers: [String: String]) -> HTTPResponseHead { HTTPResponseHead(status: 200, headers: headers) }

    @Test func progressiveTextUsesXTextSizeNotTheBodyLength() throws {
        let body = Array("a\r\nb\r\n".utf8)  // 6 bytes on the wire for 4 in the log
        let chunk = try ProgressiveText(head: Self.head(["x-text-size": "104", "x-more-data": "true"]), body: body, requestedStart: 100)
        #expect(chunk.nextStart == 104)
        #expect(chunk.moreData)
        #expect(!chunk.restarted)
    }

    @Test func anAbsentXMoreDataMeansTheLogIsComplete() throws {
        let chunk = try ProgressiveText(head: Self.head(["x-text-size": "10"]), body: [], requestedStart: 10)
        #expect(!chunk.moreData)
    }

    @Test func aSizeBelowTheStartMeansJenkinsStartedOverFromZero() throws {
        let chunk = try ProgressiveText(head: Self.head(["x-text-size": "12", "x-more-data": "true"]),
                                        body: Array("replaced\r\n".utf8), requestedStart: 500)
        #expect(chunk.restarted)
        #expect(chunk.nextStart == 12)
    }

    @Test func aSizeThatIsNoOffsetIsAProtocolError() {
        #expect(throws: HarkError.self) {
            try ProgressiveText(head: Self.head(["x-text-size": "lots"]), body: [], requestedStart: 0)
        }
    }

    @Test func statusComesFromTheBallColour() {
        #expect(BuildStatus(color: "blue") == .success)
        #expect(BuildStatus(color: "red_anime") == .failure)
        #expect(BuildStatus.isBuilding(color: "red_anime"))
        #expect(!BuildStatus.isBuilding(color: "yellow"))
        #expect(BuildStatus(color: "yellow") == .unstable)
        #expect(BuildStatus(color: "aborted") == .aborted)
        #expect(BuildStatus(color: "notbuilt_anime") == .notBuilt)
        #expect(BuildStatus(color: "disabled") == .disabled)
        // BallColor.GREY, which plugins' items report when never built.
        #expect(BuildStatus(color: "grey") == .notBuilt)
        #expect(BuildStatus(color: "grey").word == "not built")
        #expect(BuildStatus(color: "purple") == .unknown)
        #expect(BuildStatus(result: "UNSTABLE") == .unstable)
    }

    @Test func foldersAndMultibranchProjectsFlattenToFullNames() throws {
        let json = try JSON.parse("""
            {"jobs":[{"_class":"hudson.model.FreeStyleProject","name":"app","color":"blue"},
             {"_class":"com.cloudbees.hudson.plugins.folder.Folder","name":"team","jobs":[
               {"_class":"org.jenkinsci.plugins.workflow.job.WorkflowJob","name":"api","color":"red_anime"},
               {"_class":"org.jenkinsci.plugins.workflow.multibranch.WorkflowMultiBranchProject","name":"web","jobs":[
                 {"_class":"org.jenkinsci.plugins.workflow.job.WorkflowJob","name":"main","color":"notbuilt"}]}]},
             {"_class":"com.cloudbees.hudson.plugins.folder.Folder","name":"empty","jobs":[]}]}
            """)
        let jobs = JobSummary.flatten(json)
        #expect(jobs.map(\.path.description) == ["app", "team/api", "team/web/main"])
        #expect(jobs[1].isBuilding)
        #expect(jobs[1].status == .failure)
    }

    @Test func jobPathsEncodeEachNameAndReadBackFromURLs() {
        let path = JobPath(["team one", "app#2"])
        #expect(path.urlPath == "/job/team%20one/job/app%232/")
        #expect(JobPath(url: "https://ci.example.com/jenkins/job/team%20one/job/app%232/12/") == path)
        #expect(JobPath(parsing: "team//app/")?.components == ["team", "app"])
        #expect(JobPath(parsing: "/") == nil)
        #expect(JobPath(url: "https://ci.example.com/queue/") == nil)
    }

    @Test func treeQueriesArePercentEncoded() {
        #expect(JenkinsAPI.jobTree.hasPrefix("/api/json?tree=jobs%5Bname%2Ccolor%2C_class%2Cjobs%5B"))
        #expect(!JenkinsAPI.jobTree.contains("["))
        #expect(JenkinsAPI.job(JobPath(["app"])).contains("%7B0%2C10%7D"))
    }

    @Test func theQueueItemIsReadFromTheLocationHeader() {
        #expect(JenkinsServer.queueID(fromLocation: "http://ci:8080/jenkins/queue/item/42/") == 42)
        #expect(JenkinsServer.queueID(fromLocation: "/queue/item/7") == 7)
        #expect(JenkinsServer.queueID(fromLocation: "http://ci/job/app/") == nil)
    }

    @Test func parameterDefinitionsKeepTypeDefaultAndChoices() throws {
        let json = try JSON.parse("""
            {"property":[{"_class":"jenkins.model.BuildDiscarderProperty"},
             {"parameterDefinitions":[
              {"name":"BRANCH","type":"StringParameterDefinition","defaultParameterValue":{"value":"main"},"description":"<b>Branch</b> to build"},
              {"name":"NOTE","type":"StringParameterDefinition","defaultParameterValue":{"value":""}},
              {"name":"TARGET","type":"ChoiceParameterDefinition","choices":["staging","production"],"defaultParameterValue":{"value":"staging"}},
              {"name":"DRY_RUN","type":"BooleanParameterDefinition","defaultParameterValue":{"value":false}},
              {"name":"TOKEN","type":"PasswordParameterDefinition","defaultParameterValue":{"_class":"hudson.model.PasswordParameterValue","name":"TOKEN"}},
              {"name":"VERSION","_class":"net.example.GitParameterDefinition"},
              {"name":"UPSTREAM","type":"RunParameterDefinition","projectName":"lib","defaultParameterValue":{"_class":"hudson.model.RunParameterValue","name":"UPSTREAM","jobName":"lib","number":"12"}},
              {"name":"BASE","type":"RunParameterDefinition","projectName":"new","defaultParameterValue":null}]}]}
            """)
        let job = JobDetails(path: JobPath(["app"]), json)
        #expect(job.parameters.map(\.name) == ["BRANCH", "NOTE", "TARGET", "DRY_RUN", "TOKEN", "VERSION", "UPSTREAM", "BASE"])
        #expect(job.parameters.map(\.kind) == [.string, .string, .choice, .boolean, .password, .other, .run, .run])
        // Only what has no default at all must be given: an empty string is a default, and a
        // password's default is never exported but used when none is sent.
        #expect(job.parameters.map(\.isRequired) == [false, false, false, false, false, true, false, true])
        #expect(job.parameters.map(\.isAskedInShell) == [false, true, false, false, true, true, false, true])
        #expect(job.parameters[6].defaultValue == "lib#12")
        #expect(job.parameters[3].defaultValue == "false")
        #expect(job.parameters[0].description == "<b>Branch</b> to build")
        #expect(JenkinsText.plain(job.parameters[0].description!) == "Branch to build")
        #expect(job.parameters[5].typeLabel == "Git")
    }

    @Test func typedLinesBecomeCommands() async throws {
        let jobs = [JobSummary(path: JobPath(["team", "app"]), color: "blue")]
        func read(_ line: String) async throws -> CommandInvocation {
            try await TypedCommands.invocation(for: line, jobs: { jobs }, session: "ci")
        }
        #expect(try await read("build app BRANCH=main").name == "build")
        #expect(try await read("build app BRANCH=main").arguments == ["app", "BRANCH=main"])
        #expect(try await read("build app \"NOTE=two words\"").rawArguments == "app \"NOTE=two words\"")
        #expect(try await read("log app #3").arguments == ["app", "#3"])
        #expect(try await read("status team/app").name == "status")
        #expect(try await read("app").name == "job", "a job's bare name shows the job")
        await #expect(throws: HarkError.usage("no job \"ap\" on ci; did you mean team/app? (\(TypedCommands.explanation))")) {
            try await read("ap")
        }
        await #expect(throws: HarkError.usage(TypedCommands.explanation)) { try await read("hello there") }
    }

    @Test func theCacheKeepsJobsFiveMinutesAndStatesThirtySeconds() {
        let clock = JenkinsPollClock()
        let cache = JenkinsCache(now: { clock.now })
        let app = JobPath(["app"])
        cache.store(jobs: [JobSummary(path: app, color: "blue")])
        cache.store(job: JobDetails(path: app, .object([:])))
        clock.advance(29)
        #expect(cache.jobs?.count == 1)
        #expect(cache.job(app) != nil)
        clock.advance(2)
        #expect(cache.job(app) == nil, "a build state is stale after 30 seconds")
        #expect(cache.jobs?.count == 1)
        clock.advance(270)
        #expect(cache.jobs == nil, "the job list is stale after 5 minutes")
        #expect(cache.knownJobNames == ["app"], "Tab still offers the names it knows")
        cache.store(jobs: [JobSummary(path: app, color: "blue")])
        cache.invalidate(app)
        #expect(cache.jobs == nil)
    }
}

final class JenkinsPollClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_700_000_000)
    var now: Date { lock.withLock { current } }
    func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
}
