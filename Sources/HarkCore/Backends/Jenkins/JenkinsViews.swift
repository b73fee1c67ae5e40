import FoundationEssentials
import Glibc

/// What `/jobs`, `/job`, `/status` and `/queue` show: styled lines, no I/O.
enum JenkinsViews {
    /// Favourites first (★, in the order they were made favourites), then the rest as Jenkins lists them.
    static func jobList(_ jobs: [JobSummary], filter: String?, favourites: [String] = []) -> Document {
        var shown = filter.map { text in jobs.filter { $0.path.description.localizedCaseInsensitiveContains(text) } } ?? jobs
        guard !shown.isEmpty else {
            if let filter { return [StyledLine("no job matches \"\(filter)\" (\(jobs.count) jobs in all)", .dim)] }
            return [StyledLine("this server has no jobs", .dim)]
        }
        let starred = favourites.compactMap { name in shown.first { $0.path.description == name } }
        shown = starred + shown.filter { job in !starred.contains(job) }
        let marked = !starred.isEmpty
        var lines = Table.render(shown.map { job in
            let star = starred.contains(job) ? [Span("★", .accent)] : (marked ? [Span(" ")] : [])
            return star + [Span(job.status.mark, job.status.style), Span(job.path.description, .bold), Span(job.status.word, .dim),
                           job.isBuilding ? Span("⟳ building", .accent) : Span("")]
        }, gap: 2).map(trimmed)
        if filter != nil { lines.append(StyledLine("\(shown.count) of \(jobs.count) jobs", .dim)) }
        return lines
    }

    static func job(_ job: JobDetails) -> Document {
        if job.kind != .job {
            let what = job.kind == .folder ? "folder" : "multibranch project"
            let children = job.children.map { Span("  " + job.path.appending($0).description) }
            return [StyledLine([Span(job.path.description, .bold), Span("  " + what, .dim)])]
                + (job.description.map { [StyledLine($0)] } ?? [])
                + [StyledLine(job.kind == .folder ? "jobs" : "branches", .heading)]
                + (children.isEmpty ? [StyledLine("  none", .dim)] : children.map { StyledLine([$0]) })
        }
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
                return [Span("  #\(build.number)"), status, Span(duration, .dim), Span(build.startedAt.map { TimeFormat.short($0) } ?? "", .dim)]
            }).map(trimmed)
        }
        return lines
    }

    /// What a parameter falls back to.
    static func detail(_ parameter: ParameterDefinition) -> String {
        switch parameter.kind {
        case .password: return "asked without echo"
        case .file: return "cannot be sent from hark"
        default:
            guard !parameter.isRequired else { return "required" }
            return parameter.defaultValue.map { $0.isEmpty ? "default empty" : "default " + $0 } ?? "default set"
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
            var text = " #\(build.number) building" + (build.startedAt.map { " since " + TimeFormat.short($0) } ?? "")
            if build.estimatedDuration > 0 { text += " (usually \(TimeFormat.duration(build.estimatedDuration / 1000)))" }
            return [StyledLine([Span("⟳ ", .accent), Span(job.path.description, .bold), Span(text)])]
        }
        return [StyledLine([Span(build.status.mark + " ", build.status.style), Span(job.path.description, .bold),
                            Span(" #\(build.number) \(build.result ?? "?") in \(TimeFormat.duration(build.duration / 1000))"),
                            Span(build.startedAt.map { " · " + TimeFormat.short($0) } ?? "", .dim)])]
    }

    static func stages(_ run: PipelineRun) -> Document {
        Table.render(run.stages.map { stage in
            let style: Style = ["FAILED"].contains(stage.status) ? .error : (stage.status == "SUCCESS" ? .success : .accent)
            return [Span("  " + PipelineRun.mark(stage.status), style), Span(stage.name, .bold), Span(stage.status.lowercased(), .dim),
                    Span(stage.status == "NOT_EXECUTED" ? "" : TimeFormat.duration(stage.durationMillis / 1000), .dim)]
        }).map(trimmed)
    }

    /// The counts, then the first ten failures with the first line of their message.
    static func tests(_ report: TestReport, title: String) -> Document {
        var lines: Document = [StyledLine([Span(title + ": ", .heading),
                                           Span(report.counts.summary, report.counts.failed > 0 ? .error : .success)])]
        for failure in report.failures.prefix(10) {
            let name = failure.className.isEmpty ? failure.name : failure.className + "." + failure.name
            lines.append(StyledLine([Span("  ✗ ", .error), Span(name, .bold)]
                                    + (failure.details.map { [Span(": " + $0, .dim)] } ?? [])))
        }
        if report.failures.count > 10 { lines.append(StyledLine("  … \(report.failures.count - 10) more failed", .dim)) }
        return lines
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
