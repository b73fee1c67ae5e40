import FoundationEssentials
import Glibc

/// What hark asks of one Jenkins server, in its own terms (jobs, builds, the queue), over
/// the client and through the cache. Names the user typed are resolved here, with
/// "did you mean" when Jenkins has no such job.
final class JenkinsServer: Sendable {
    let session: String
    let client: JenkinsClient
    let cache: JenkinsCache

    init(session: String, client: JenkinsClient, cache: JenkinsCache) {
        self.session = session
        self.client = client
        self.cache = cache
    }

    // MARK: Jobs

    func jobs(fresh: Bool = false) async throws -> [JobSummary] {
        if !fresh, let cached = cache.jobs { return cached }
        let (_, json) = try await client.getJSON(JenkinsAPI.jobTree)
        let jobs = JobSummary.flatten(json)
        cache.store(jobs: jobs)
        return jobs
    }

    /// A job by the name the user typed: a full name (`team/app`), or a bare name that only
    /// one job in any folder has.
    func job(_ name: String, fresh: Bool = false) async throws -> JobDetails {
        guard var path = JobPath(parsing: name) else { throw HarkError.usage("name a job, e.g. app or team/app") }
        // A branch's name may hold a slash (`app/feature/x`): the job list knows the parts.
        if let known = cache.knownJobs.first(where: { $0.path.description == name }) { path = known.path }
        if !fresh, let cached = cache.job(path) { return cached }
        if let found = try await fetchJob(path) { return found }
        let jobs = try await self.jobs()
        let candidates = Self.candidates(for: name, in: jobs)
        if candidates.count == 1, candidates[0].path != path, let found = try await fetchJob(candidates[0].path) {
            return found
        }
        throw unknownJob(name, among: jobs)
    }

    /// Jobs a name may mean: the full name in another case, else every job with that bare name.
    static func candidates(for name: String, in jobs: [JobSummary]) -> [JobSummary] {
        let lowered = name.lowercased()
        let full = jobs.filter { $0.path.description.lowercased() == lowered }
        return full.isEmpty ? jobs.filter { $0.path.leaf.lowercased() == lowered } : full
    }

    private func fetchJob(_ path: JobPath) async throws -> JobDetails? {
        let (status, json) = try await client.getJSON(JenkinsAPI.job(path), handling: [404])
        guard status != 404 else { return nil }
        let details = JobDetails(path: path, json)
        cache.store(job: details)
        return details
    }

    func unknownJob(_ name: String, among jobs: [JobSummary]) -> HarkError {
        let same = Self.candidates(for: name, in: jobs).map(\.path.description)
        if same.count > 1 {
            return .usage("several jobs are called \(name): \(same.joined(separator: ", ")); give the full name")
        }
        let suggestion = Self.suggestion(for: name, in: jobs)
        return .usage("no job \"\(name)\" on \(session)" + (suggestion.map { "; did you mean \($0)?" } ?? "; /jobs lists them"))
    }

    /// The job a mistyped name most likely meant, by its full name or its bare name.
    static func suggestion(for name: String, in jobs: [JobSummary]) -> String? {
        Suggest.closest(to: name, in: jobs.map(\.path.description))
            ?? Suggest.closest(to: name, in: jobs.map(\.path.leaf)).flatMap { leaf in
                jobs.first { $0.path.leaf == leaf }?.path.description
            }
    }

    // MARK: Builds

    /// A build by number, or the newest with `nil`.
    func build(_ job: JobPath, _ number: Int?) async throws -> BuildInfo {
        let reference = number.map(String.init) ?? "lastBuild"
        let (status, json) = try await client.getJSON(JenkinsAPI.build(job, reference), handling: [404])
        guard status != 404, let build = BuildInfo(json) else {
            if let number { throw HarkError.usage("\(job) has no build #\(number)") }
            throw HarkError.usage("\(job) has not been built yet")
        }
        return build
    }

    /// Starts a build; returns the queue item's id from the Location header (nil if Jenkins
    /// named none).
    func trigger(_ job: JobDetails, parameters: [(String, String)]) async throws -> Int? {
        let path = JenkinsAPI.trigger(job.path, parameterized: !job.parameters.isEmpty)
        let response = try await client.post(path, form: parameters, handling: [404, 409])
        cache.invalidate(job.path)
        switch response.status {
        case 404: throw unknownJob(job.path.description, among: (try? await jobs()) ?? [])
        case 409: throw HarkError.backend("\(job.path) is disabled on \(session) (HTTP 409); enable it in Jenkins to build it")
        default: return response.head.header("location").flatMap(Self.queueID(fromLocation:))
        }
    }

    /// `…/queue/item/42/` → 42.
    static func queueID(fromLocation location: String) -> Int? {
        let parts = location.split(separator: "/")
        guard let index = parts.lastIndex(of: "item"), index + 1 < parts.count else { return nil }
        return Int(parts[index + 1])
    }

    func stop(_ job: JobPath, _ number: Int) async throws {
        let response = try await client.post(JenkinsAPI.stop(job, number), handling: [404])
        if response.status == 404 { throw HarkError.usage("\(job) has no build #\(number)") }
        cache.invalidate(job)
    }

    /// One poll of a build's console from byte `start`.
    func console(_ job: JobPath, _ number: Int, from start: Int) async throws -> ProgressiveText {
        let response = try await client.get(JenkinsAPI.progressiveText(job, number, start: start), handling: [404])
        if response.status == 404 { throw HarkError.usage("\(job) has no build #\(number)") }
        return try ProgressiveText(head: response.head, body: response.body, requestedStart: start)
    }

    // MARK: Pipelines, artifacts, tests

    /// The stages of a Pipeline run; nil for a build that is no pipeline.
    func pipeline(_ job: JobPath, _ number: Int) async throws -> PipelineRun? {
        let (status, json) = try await client.getJSON(JenkinsAPI.describe(job, number), handling: [404])
        return status == 404 ? nil : PipelineRun(json)
    }

    func pendingInputs(_ job: JobPath, _ number: Int) async throws -> [PendingInput] {
        let (status, json) = try await client.getJSON(JenkinsAPI.pendingInputs(job, number), handling: [404])
        return status == 404 ? [] : (json.array ?? []).compactMap(PendingInput.init)
    }

    /// Answers an input step: proceed (with the form of its parameters) or abort.
    func answer(_ input: PendingInput, of job: JobPath, _ number: Int, proceed form: [(String, String)]?) async throws {
        let action = form == nil ? "abort" : (input.parameters.isEmpty ? "proceedEmpty" : "proceed")
        let response = try await client.post(JenkinsAPI.input(job, number, input.id, action), form: form ?? [], handling: [404])
        if response.status == 404 {
            throw HarkError.usage("\(job) #\(number) no longer waits for \"\(input.message)\"")
        }
        cache.invalidate(job)
    }

    /// The build's test report; nil when it recorded none.
    func testReport(_ job: JobPath, _ number: Int) async throws -> TestReport? {
        let (status, json) = try await client.getJSON(JenkinsAPI.testReport(job, number), handling: [404])
        return status == 404 ? nil : TestReport(json)
    }

    /// Saves an archived file; returns the bytes written.
    func download(_ job: JobPath, _ number: Int, artifact: String, to destination: String) async throws -> Int {
        let response = try await client.open(JenkinsAPI.artifact(job, number, artifact), handling: [404])
        defer { response.stream.cancel() }
        if response.head.status == 404 { throw HarkError.usage("\(job) #\(number) has no artifact \(artifact); /artifacts lists them") }
        return try await DownloadTarget.save(response.body, to: destination)
    }

    // MARK: Queue

    func queue() async throws -> [QueueItem] {
        let (_, json) = try await client.getJSON(JenkinsAPI.queue)
        return (json["items"]?.array ?? []).compactMap(QueueItem.init)
    }

    /// nil once the item is gone (left items expire after five minutes).
    func queueItem(_ id: Int) async throws -> QueueItem? {
        let (status, json) = try await client.getJSON(JenkinsAPI.queueItem(id), handling: [404])
        return status == 404 ? nil : QueueItem(json)
    }

    /// The build that came from a queue item that has expired.
    func build(of job: JobPath, fromQueueItem id: Int) async throws -> Int? {
        let (_, json) = try await client.getJSON(JenkinsAPI.buildsByQueueID(job))
        return json["builds"]?.array?.first { $0["queueId"]?.int == id }?["number"]?.int
    }

    /// Takes an item out of the queue; returns nil, or the number of the build it had already
    /// become. Queue.doCancelItem finds a left item too and answers 500 "Could not cancel run
    /// for id N" for it: the build started while the cancel was on its way.
    func cancel(queueItem id: Int) async throws -> Int? {
        let response = try await client.post(JenkinsAPI.cancelQueueItem(id), handling: [500])
        guard response.status == 500 else { return nil }
        if let number = try await queueItem(id)?.buildNumber { return number }
        throw client.failure(response)
    }

    // MARK: Server

    /// Who the credentials belong to, and the server's version.
    func whoAmI() async throws -> (user: String, version: String?) {
        let (_, json) = try await client.getJSON(JenkinsAPI.whoAmI)
        let anonymous = json["anonymous"]?.bool ?? false
        let name = json["name"]?.string ?? "?"
        return (anonymous ? "anonymous" : name, client.version)
    }
}
