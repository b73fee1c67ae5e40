import FoundationEssentials
import Glibc

/// What `/jobs`, `/job`, `/status` and `/queue` show: styled lines, no I/O.
enum JenkinsViews {
    static func jobList(_ jobs: [JobSummary], filter: String?) -> Document {
        let shown = filter.map { text in jobs.filter { $0.path.description.localizedCaseInsensitiveContains(text) } } ?? jobs
        guard !shown.isEmpty else {
            if let filter { return [StyledLine("no job matches \"\(filter)\" (\(jobs.count) jobs in all)", .dim)] }
            return [StyledLine("this server has no jobs", .dim)]
        }
        var lines = Table.render(shown.map { job in
            [Span(job.status.mark, job.status.style), Span(job.path.description, .bold), Span(job.status.word, .dim),
             job.isBuilding ? Span("⟳ building", .accent) : Span("")]
        }, gap: 2).map(trimmed)
        if filter != nil { lines.append(StyledLine("\(shown.count) of \(jobs.count) jobs", .dim)) }
        return lines
    }

    static func job(_ job: JobDetails) -> Document {
        var heading: [Span] = [Span(job.path.description, .bold), Span("  "), Span(job.status.mark + " " + job.status.word, job.status.style)]
        if job.isBuilding { heading.append(Span("  ⟳ building", .accent)) }
        if job.inQueue { heading.append(Span("  in the queue", .accent)) }
        var lines: Document = [StyledLine(heading)]
        if let description = job.description { lines.append(StyledLine(description)) }
        if !job.parameters.isEmpty {
            lines.append(StyledLine("parameters", .heading))
            lines += Table.render(job.parameters.map { parameter in
                [Span("  " + parameter.name, .accent), Span(parameter.typeLabel, .dim), Span(detail(parameter)),
                 Span(note(parameter), .dim)]
            }).map(trimmed)
        }
        lines.append(StyledLine("builds", .heading))
        if job.builds.isEmpty {
            lines.append(StyledLine("  none yet", .dim))
        } else {
            lines += Table.render(job.builds.map { build in
                let status = build.isRunning ? Span("⟳ building", .accent) : Span(build.status.mark + " " + (build.result ?? "?"), build.status.style)
                let duration = build.isRunning ? "running" : TimeFormat.duration(build.duration / 1000)
                return [Span("  #\(build.number)"), status, Span(duration, .dim), Span(TimeFormat.short(build.startedAt), .dim)]
            }).map(trimmed)
        }
        return lines
    }

    /// What a parameter falls back to.
    static func detail(_ parameter: ParameterDefinition) -> String {
        switch parameter.kind {
        case .password: return parameter.isRequired ? "asked without echo" : "default set"
        case .file: return "cannot be sent from hark"
        default: return parameter.isRequired ? "required" : "default " + (parameter.defaultValue ?? "")
        }
    }

    /// The choices, then the description.
    static func note(_ parameter: ParameterDefinition) -> String {
        let parts = [parameter.choices.isEmpty ? nil : parameter.choices.joined(separator: " | "),
                     parameter.description.map(JenkinsText.plain)]
        return parts.compactMap { $0 }.joined(separator: " · ")
    }

    /// One line: the job's newest build.
    static func status(_ job: JobDetails) -> Document {
        guard let build = job.builds.first else {
            return [StyledLine([Span(job.status.mark + " ", job.status.style), Span(job.path.description, .bold),
                                Span(" has not been built", .dim)])]
        }
        if build.isRunning {
            var text = " #\(build.number) building since \(TimeFormat.short(build.startedAt))"
            if build.estimatedDuration > 0 { text += " (usually \(TimeFormat.duration(build.estimatedDuration / 1000)))" }
            return [StyledLine([Span("⟳ ", .accent), Span(job.path.description, .bold), Span(text)])]
        }
        return [StyledLine([Span(build.status.mark + " ", build.status.style), Span(job.path.description, .bold),
                            Span(" #\(build.number) \(build.result ?? "?") in \(TimeFormat.duration(build.duration / 1000))"),
                            Span(" · " + TimeFormat.short(build.startedAt), .dim)])]
    }

    static func queue(_ items: [QueueItem]) -> Document {
        guard !items.isEmpty else { return [StyledLine("the queue is empty", .dim)] }
        return Table.render(items.map { item in
            [Span("#\(item.id)", .dim), Span(item.job, .bold), Span(item.state, item.stuck ? .warning : .accent),
             Span(item.why ?? "")]
        }).map(trimmed)
    }

    /// A table row whose last cells are empty would end in padding.
    static func trimmed(_ line: StyledLine) -> StyledLine {
        var spans = line.spans
        while let last = spans.last, last.text.allSatisfy(\.isWhitespace) { spans.removeLast() }
        return StyledLine(spans)
    }
}
