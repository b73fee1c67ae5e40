import FoundationEssentials
import Glibc

/// Follows one build to its end as reply events: the queue item until the build starts
/// (its reason as status lines: "waiting: In the quiet period…", "blocked: …"), then the
/// console as it grows (the reply text, stored in the history), then the result as the
/// closing notice ("app #12 SUCCESS in 1m02s", with the test counts when it has tests),
/// which is also the one-line notice when the build ends in the background. A Pipeline's
/// stages come as status lines, and an input step it waits on as a notice. Cancelling the
/// stream stops following, not the build.
struct BuildFollower: Sendable {
    enum Start: Sendable {
        case queued(Int)
        case build(Int)
    }

    let server: JenkinsServer
    let job: JobPath
    let pollInterval: Double
    let followed: FollowedBuilds
    /// The waits between polls: the workspace's clock, so a test drives them.
    let clock: HarkClock

    func events(from start: Start, preamble: [ReplyEvent] = []) -> AsyncThrowingStream<ReplyEvent, Error> {
        // Registered before the stream is handed out, so a /stop-build typed at once finds it.
        let entry: Int
        switch start {
        case .queued(let id): entry = followed.begin(job, queueID: id, number: nil)
        case .build(let number): entry = followed.begin(job, queueID: nil, number: number)
        }
        return ProducedStream.make { emit in
            defer { followed.end(entry) }
            try await follow(from: start, entry: entry, preamble: preamble, emit: emit)
        }
    }

    private func follow(from start: Start, entry: Int, preamble: [ReplyEvent], emit: ProducedStream.Emitter<ReplyEvent>) async throws {
        var queueID: Int?
        var number: Int?
        switch start {
        case .queued(let id): queueID = id
        case .build(let build): number = build
        }
        for event in preamble { try await emit(event) }
        if let queueID {
            try await emit(.resumable(ResumePoint(kind: "build", key: "\(job)@queue\(queueID)",
                                                  details: ["job": job.description, "queue": String(queueID), "label": "\(job) (queued)"])))
            guard let started = try await waitInQueue(queueID, emit: emit) else {
                try await emit(.text("\(job): cancelled while waiting in the queue\n"))
                try await emit(.notice("\(job) cancelled in the queue"))
                try await emit(.finished(reason: "CANCELLED"))
                return
            }
            number = started
            followed.started(entry, number: started)
            try await emit(.status("started \(job) #\(started)"))
        }
        guard let number else { return }
        try await emit(.resumable(ResumePoint(kind: "build", key: "\(job)#\(number)",
                                              details: ["job": job.description, "number": String(number), "label": "\(job) #\(number)"])))
        try await emit(.backendMessageID("\(job)#\(number)"))
        try await streamConsole(number, emit: emit)
        let build = try await finalState(number)
        server.cache.invalidate(job)
        try await emit(.notice(Self.summary(job, build)))
        try await emit(.finished(reason: build.result))
    }

    /// Polls the queue item until its build starts; nil if it was cancelled. A reason is
    /// shown when it changes, ignoring the numbers in it ("Expires in 4.9 sec" counts down).
    private func waitInQueue(_ id: Int, emit: ProducedStream.Emitter<ReplyEvent>) async throws -> Int? {
        var shown: String?
        while true {
            guard let item = try await server.queueItem(id) else {
                // Left items expire after five minutes; the build still names its queue item.
                if let number = try await server.build(of: job, fromQueueItem: id) { return number }
                throw HarkError.backend("queue item #\(id) of \(job) is gone and no build came from it; /job \(job) shows its builds")
            }
            if let number = item.buildNumber { return number }
            if item.cancelled { return nil }
            if let why = item.why {
                let line = "\(item.state): \(why)"
                let key = String(line.filter { !$0.isNumber })
                if key != shown {
                    shown = key
                    try await emit(.status(line))
                }
            }
            try await pause()
        }
    }

    /// What the follower last said about a Pipeline's stages and input steps.
    struct StageWatch {
        /// nil until the first answer: a build that is no pipeline answers 404 once.
        var isPipeline: Bool?
        var shown: String?
        var announcedInputs: Set<String> = []
    }

    /// progressiveText from byte 0 until Jenkins says the log is complete; for a Pipeline,
    /// its stages as a status line whenever one changes, and a notice when it waits for input.
    private func streamConsole(_ number: Int, emit: ProducedStream.Emitter<ReplyEvent>) async throws {
        var start = 0
        var decoder = ConsoleDecoder()
        var watch = StageWatch()
        while true {
            let chunk = try await server.console(job, number, from: start)
            if chunk.restarted {
                let held = decoder.finish()
                if !held.isEmpty { try await emit(.text(held)) }
                try await emit(.status("the console log was replaced; showing it again from the start"))
            }
            let text = decoder.feed(chunk.body)
            if !text.isEmpty { try await emit(.text(text)) }
            start = chunk.nextStart
            if !chunk.moreData { break }
            try await watchStages(number, &watch, emit: emit)
            try await pause()
        }
        let rest = decoder.finish()
        if !rest.isEmpty { try await emit(.text(rest)) }
        if watch.isPipeline == true { try await watchStages(number, &watch, emit: emit) }
    }

    /// One look at a Pipeline's stages (pipeline-stage-view's wfapi/describe) and, while it is
    /// paused, at the input steps it waits on. A failure to read them never stops the console.
    private func watchStages(_ number: Int, _ watch: inout StageWatch, emit: ProducedStream.Emitter<ReplyEvent>) async throws {
        guard watch.isPipeline != false else { return }
        let answer: PipelineRun?
        do { answer = try await server.pipeline(job, number) } catch { return }
        guard let run = answer else {
            watch.isPipeline = false
            return
        }
        watch.isPipeline = true
        if !run.stages.isEmpty, run.state != watch.shown {
            watch.shown = run.state
            try await emit(.status(run.line))
        }
        guard run.isPaused, let inputs = try? await server.pendingInputs(job, number) else { return }
        for input in inputs where !watch.announcedInputs.contains(input.id) {
            watch.announcedInputs.insert(input.id)
            try await emit(.notice("\(job) #\(number) waits for input: \(input.message) (/approve \(job) #\(number) proceeds, "
                + "/abort \(job) #\(number) stops it)"))
        }
    }

    /// The build's result. The log is complete only once the build is, so one request
    /// normally does; a few more cover a server that records the result a moment later.
    private func finalState(_ number: Int) async throws -> BuildInfo {
        var build = try await server.build(job, number)
        var attempts = 0
        while build.isRunning && attempts < 10 {
            attempts += 1
            try await pause()
            build = try await server.build(job, number)
        }
        return build
    }

    private func pause() async throws {
        try await clock.sleep(pollInterval)
    }

    /// "app #12 SUCCESS in 1m02s".
    static func summary(_ job: JobPath, _ build: BuildInfo) -> String {
        guard let result = build.result else { return "\(job) #\(build.number) ended without a result" }
        let tests = build.tests.map { " · tests: " + $0.summary } ?? ""
        return "\(job) #\(build.number) \(result) in \(TimeFormat.duration(build.duration / 1000))" + tests
    }
}
