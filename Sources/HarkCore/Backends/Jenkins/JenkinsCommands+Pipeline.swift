import FoundationEssentials
import Glibc

/// What a Jenkins client is expected to do besides starting builds: a Pipeline's stages and
/// input steps, a build's archived files and test results, and favourite jobs.
extension JenkinsBackend {
    /// The build `[JOB] [#N]` names: the one this session follows when no job is named and
    /// there is one, else the named (or last named) job's build N or newest.
    func namedBuild(_ words: [String], _ context: CommandContext) async throws -> (JobPath, BuildInfo) {
        if words.isEmpty, let entry = followed.all.last, let number = entry.number {
            return (entry.job, try await server.build(entry.job, number))
        }
        let (name, number) = try jobAndNumber(words, context)
        let job = try buildable(try await server.job(name))
        lastJob = job.path.description
        return (job.path, try await server.build(job.path, number))
    }

    func stages(_ context: CommandContext) async throws -> CommandOutcome {
        let (job, build) = try await namedBuild(context.arguments.words, context)
        guard let run = try await server.pipeline(job, build.number) else {
            throw HarkError.usage("\(job) #\(build.number) is not a Pipeline build, so it has no stages")
        }
        guard !run.stages.isEmpty else { return .output([StyledLine("\(job) #\(build.number) has no stages yet", .dim)]) }
        return .output([StyledLine("\(job) #\(build.number) stages", .heading)] + JenkinsViews.stages(run))
    }

    func approve(_ context: CommandContext) async throws -> CommandOutcome {
        try await answerInput(context, proceed: true)
    }

    func abortInput(_ context: CommandContext) async throws -> CommandOutcome {
        try await answerInput(context, proceed: false)
    }

    /// `/approve [JOB] [#N] [KEY=VALUE…]` and `/abort [JOB] [#N]`: the first input step the
    /// build waits on is answered.
    private func answerInput(_ context: CommandContext, proceed: Bool) async throws -> CommandOutcome {
        let words = context.arguments.words
        let values = words.filter { $0.contains("=") }
        guard proceed || values.isEmpty else { throw context.badArguments("/abort takes no values") }
        let (job, build) = try await namedBuild(words.filter { !$0.contains("=") }, context)
        let inputs = try await server.pendingInputs(job, build.number)
        guard let input = inputs.first else {
            throw HarkError.usage("\(job) #\(build.number) is not waiting for input")
        }
        let form = proceed ? try input.proceedForm(values, job: job) : nil
        try await server.answer(input, of: job, build.number, proceed: form)
        let more = inputs.count > 1 ? " (\(inputs.count - 1) more waiting)" : ""
        let done = proceed ? "\(input.proceedText): \(input.message)" : "aborted at: \(input.message)"
        return .output([StyledLine("\(job) #\(build.number) \(done)\(more)", proceed ? .success : .warning)])
    }

    func artifacts(_ context: CommandContext) async throws -> CommandOutcome {
        let (job, build) = try await namedBuild(context.arguments.words, context)
        remember(artifactsOf: job, build)
        guard !build.artifacts.isEmpty else { return .output([StyledLine("\(job) #\(build.number) archived no files", .dim)]) }
        return .output([StyledLine("\(job) #\(build.number) artifacts", .heading)]
            + build.artifacts.map { StyledLine("  " + $0) } + [StyledLine("/download NAME [PATH] saves one", .dim)])
    }

    /// `/download ARTIFACT [PATH]`: a file of the build `/artifacts` showed last (else of the
    /// newest build of the job named last), by its path or a file name only it has.
    func downloadArtifact(_ context: CommandContext) async throws -> CommandOutcome {
        let wanted = context.arguments["ARTIFACT"] ?? ""
        var listed = lastArtifacts
        if listed == nil {
            guard lastJob != nil else { throw HarkError.usage("/artifacts JOB lists a build's files first") }
            let (job, build) = try await namedBuild([], context)
            remember(artifactsOf: job, build)
            listed = lastArtifacts
        }
        guard let (job, number, files) = listed else { throw HarkError.usage("/artifacts JOB lists a build's files first") }
        let byName = files.filter { $0.split(separator: "/").last.map(String.init) == wanted }
        guard let artifact = files.first(where: { $0 == wanted }) ?? (byName.count == 1 ? byName[0] : nil) else {
            if byName.count > 1 { throw HarkError.usage("several artifacts are called \(wanted): \(byName.joined(separator: ", "))") }
            throw HarkError.usage("\(job) #\(number) has no artifact \(wanted); /artifacts lists them")
        }
        let destination = try DownloadTarget.path(for: artifact, given: context.arguments["PATH"],
                                                  retry: "/download \(wanted)")
        let written = try await server.download(job, number, artifact: artifact, to: destination)
        return .output([StyledLine("saved \(artifact) of \(job) #\(number) (\(ByteCount.format(written))) to \(destination)", .success)])
    }

    func tests(_ context: CommandContext) async throws -> CommandOutcome {
        let (job, build) = try await namedBuild(context.arguments.words, context)
        guard let report = try await server.testReport(job, build.number) else {
            return .output([StyledLine("\(job) #\(build.number) recorded no test results", .dim)])
        }
        return .output(JenkinsViews.tests(report, title: "\(job) #\(build.number) tests"))
    }

    // MARK: Favourites

    /// Favourites live in the session's config (`favourites = app, team/api`): a preference,
    /// like the rest of the session, hand-editable and kept when the history is deleted.
    var favourites: [String] {
        (session["favourites"] ?? "").split(separator: ",").map { $0.trimmingSpaces }.filter { !$0.isEmpty }
    }

    func favourite(_ context: CommandContext) async throws -> CommandOutcome {
        guard let name = context.arguments["JOB"] else {
            guard !favourites.isEmpty else { return .output([StyledLine("no favourite jobs yet; /fav JOB adds one", .dim)]) }
            return .output(favourites.map { StyledLine("★ " + $0) })
        }
        let job = try await server.job(name)
        let full = job.path.description
        guard !favourites.contains(full) else { return .output([StyledLine("\(full) is a favourite already", .dim)]) }
        try context.updateSettings(["favourites": (favourites + [full]).joined(separator: ", ")])
        return .output([StyledLine("★ \(full) is a favourite: /jobs lists it first", .success)])
    }

    func unfavourite(_ context: CommandContext) async throws -> CommandOutcome {
        let name = context.arguments["JOB"] ?? ""
        let match = favourites.first { $0 == name } ?? favourites.first { $0.lowercased() == name.lowercased() }
        guard let match else { throw HarkError.usage("\(name) is not a favourite" + (favourites.isEmpty ? "" : "; /fav lists them")) }
        let rest = favourites.filter { $0 != match }
        try context.updateSettings(["favourites": rest.isEmpty ? nil : rest.joined(separator: ", ")])
        return .output([StyledLine("\(match) is no longer a favourite", .dim)])
    }
}
