import FoundationEssentials
import Glibc

/// The Jenkins session's commands. Each returns lines to show, a page, or a build to follow.
extension JenkinsBackend {
    func listJobs(_ context: CommandContext) async throws -> CommandOutcome {
        .output(JenkinsViews.jobList(try await server.jobs(), filter: context.arguments["FILTER"], favourites: favourites))
    }

    func showQueue(_ context: CommandContext) async throws -> CommandOutcome {
        .output(JenkinsViews.queue(try await server.queue()))
    }

    func refresh(_ context: CommandContext) async throws -> CommandOutcome {
        server.cache.clear()
        return .output([StyledLine("dropped the cached jobs and build states; the next command asks \(session.name) afresh", .dim)])
    }

    func showJob(_ context: CommandContext) async throws -> CommandOutcome {
        let job = try await server.job(context.arguments["NAME"] ?? "")
        lastJob = job.path.description
        return .output(JenkinsViews.job(job))
    }

    func status(_ context: CommandContext) async throws -> CommandOutcome {
        guard let name = context.arguments["JOB"] ?? lastJob else { throw context.badArguments("no job was named yet") }
        let job = try buildable(try await server.job(name))
        lastJob = job.path.description
        return .output(JenkinsViews.status(job))
    }

    /// A job that has builds, or the error a folder or multibranch project gets: building one
    /// would only rescan it (ComputedFolder.doBuild), so its jobs or branches are named instead.
    func buildable(_ job: JobDetails) throws -> JobDetails {
        let children = job.children.map { job.path.appending($0).description }
        let shown = children.prefix(12).joined(separator: ", ") + (children.count > 12 ? ", …" : "")
        switch job.kind {
        case .job:
            return job
        case .folder:
            throw HarkError.usage("\(job.path) is a folder; " + (children.isEmpty ? "it holds no jobs" : "name one of its jobs: \(shown)"))
        case .multibranch:
            throw HarkError.usage("\(job.path) is a multibranch project; "
                + (children.isEmpty ? "it has no branches yet" : "name one of its branches: \(shown)"))
        }
    }

    func build(_ context: CommandContext) async throws -> CommandOutcome {
        let name = context.arguments["JOB"] ?? ""
        let job = try buildable(try await server.job(name))
        guard job.buildable else {
            throw HarkError.backend("\(job.path) is disabled on \(session.name); enable it in Jenkins to build it")
        }
        lastJob = job.path.description
        let parameters = try await BuildParameters.resolve(context.arguments.list("KEY=VALUE"), for: job,
                                                           interaction: context.interaction)
        let queueID = try await server.trigger(job, parameters: parameters.form)
        let line = (["/build", job.path.description] + parameters.shown).joined(separator: " ")
        guard let queueID else {
            return .output([StyledLine("\(job.path): Jenkins accepted the build but named no queue item to follow; "
                + "/status \(job.path) shows it once it starts", .warning)])
        }
        let preamble: [ReplyEvent] = parameters.defaults.isEmpty ? [] : [.status("defaults: " + parameters.defaults.joined(separator: ", "))]
        return .events(follower(job.path).events(from: .queued(queueID), preamble: preamble), recordAs: line,
                       detachOnInterrupt: true)
    }

    /// `[JOB] [#N]`: either may be left out (the job named last, the newest build).
    func jobAndNumber(_ context: CommandContext) throws -> (job: String, number: Int?) {
        try jobAndNumber(context.arguments.words, context)
    }

    func jobAndNumber(_ given: [String], _ context: CommandContext) throws -> (job: String, number: Int?) {
        var words = given
        var number: Int?
        if let last = words.last, let parsed = Int(last.hasPrefix("#") ? String(last.dropFirst()) : last), parsed > 0 {
            number = parsed
            words.removeLast()
        }
        guard words.count <= 1, let job = words.first ?? lastJob else { throw context.badArguments() }
        return (job, number)
    }

    /// A running build is followed like a new one (recorded, Ctrl-C detaches); a finished
    /// one is shown whole.
    func log(_ context: CommandContext) async throws -> CommandOutcome {
        let (name, number) = try jobAndNumber(context)
        let job = try buildable(try await server.job(name))
        lastJob = job.path.description
        let build = try await server.build(job.path, number)
        if build.isRunning {
            return .events(follower(job.path).events(from: .build(build.number)), recordAs: "/log \(job.path) #\(build.number)",
                           detachOnInterrupt: true)
        }
        var decoder = ConsoleDecoder()
        var text = ""
        var start = 0
        while true {
            let chunk = try await server.console(job.path, build.number, from: start)
            if chunk.restarted { text = "" }
            text += decoder.feed(chunk.body)
            start = chunk.nextStart
            if !chunk.moreData { break }
        }
        text += decoder.finish()
        if !text.isEmpty && !text.hasSuffix("\n") { text += "\n" }
        return .page(text + BuildFollower.summary(job.path, build) + "\n")
    }

    func stopBuild(_ context: CommandContext) async throws -> CommandOutcome {
        if context.arguments.words.isEmpty {
            let active = followed.all
            guard let entry = active.first else {
                throw HarkError.usage("no build is being followed in \(session.name); /stop-build JOB [#N]")
            }
            guard active.count == 1 else {
                throw HarkError.usage("several builds are followed here (\(active.map(\.label).joined(separator: ", "))); name one")
            }
            return try await stop(entry.job, number: entry.number, queueID: entry.queueID)
        }
        let (name, number) = try jobAndNumber(context)
        let job = try await server.job(name, fresh: true)
        if let number { return try await stop(job.path, number: number, queueID: nil) }
        if let entry = followed.all.last(where: { $0.job == job.path }) {
            return try await stop(job.path, number: entry.number, queueID: entry.queueID)
        }
        if let running = job.builds.first, running.isRunning { return try await stop(job.path, number: running.number, queueID: nil) }
        if job.inQueue, let item = try await server.queue().first(where: { $0.job == job.path.description }) {
            return try await stop(job.path, number: nil, queueID: item.id)
        }
        throw HarkError.usage("\(job.path) has no build running or queued")
    }

    private func stop(_ job: JobPath, number: Int?, queueID: Int?) async throws -> CommandOutcome {
        if let number {
            try await server.stop(job, number)
            return .output([StyledLine("asked \(session.name) to stop \(job) #\(number)", .dim)])
        }
        guard let queueID else { throw HarkError.usage("\(job) has no build running or queued") }
        if let started = try await server.cancel(queueItem: queueID) {
            return .output([StyledLine("\(job) #\(started) had already started when the cancel reached the queue; "
                + "/stop-build \(job) #\(started) stops it", .warning)])
        }
        return .output([StyledLine("took \(job) out of the queue (item #\(queueID))", .dim)])
    }
}
