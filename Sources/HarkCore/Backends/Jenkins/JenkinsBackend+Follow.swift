import FoundationEssentials
import Glibc

/// A build left running when hark exited: `hark watch` asks Jenkins about it until it ends,
/// and records its result with the end of its console.
extension JenkinsBackend: FollowsWork {
    /// Lines of the console kept with a build's end.
    static let consoleTailLines = 30

    public var followInterval: Double { max(pollInterval, 0.02) }

    public func look(at work: FollowedWork, updates: [String], askServer: Bool) async throws -> WorkEnd? {
        guard askServer else { return nil }
        guard let job = JobPath(parsing: work.details["job"] ?? "") else {
            throw HarkError.protocolViolation("followed build \(work.label) names no job")
        }
        var number = work.details["number"].flatMap { Int($0) }
        if number == nil, let queueID = work.details["queue"].flatMap({ Int($0) }) {
            if let item = try await server.queueItem(queueID) {
                if item.cancelled {
                    return WorkEnd(text: "\(job): cancelled while waiting in the queue\n", headline: "\(job) cancelled in the queue")
                }
                number = item.buildNumber
            } else {
                number = try await server.build(of: job, fromQueueItem: queueID)
                if number == nil {
                    throw HarkError.backend("queue item #\(queueID) of \(job) is gone and no build came from it")
                }
            }
        }
        guard let number else { return nil }
        let build = try await server.build(job, number)
        guard !build.isRunning else { return nil }
        server.cache.invalidate(job)
        let summary = BuildFollower.summary(job, build)
        let tail = try await consoleTail(job, number)
        return WorkEnd(text: summary + "\n" + (tail.isEmpty ? "" : "\n" + tail), headline: summary, backendID: "\(job)#\(number)")
    }

    /// The last lines of a finished build's console, read through once (a huge log is not
    /// held in memory).
    func consoleTail(_ job: JobPath, _ number: Int) async throws -> String {
        var start = 0
        var decoder = ConsoleDecoder()
        var lines: [Substring] = []
        var partial = ""
        func keep(_ text: String) {
            let pieces = (partial + text).split(separator: "\n", omittingEmptySubsequences: false)
            partial = String(pieces.last ?? "")
            lines += pieces.dropLast()
            if lines.count > Self.consoleTailLines * 2 { lines.removeFirst(lines.count - Self.consoleTailLines) }
        }
        while true {
            let chunk = try await server.console(job, number, from: start)
            keep(decoder.feed(chunk.body))
            guard chunk.moreData, chunk.nextStart > start else { break }
            start = chunk.nextStart
        }
        keep(decoder.finish())
        if !partial.isEmpty { lines.append(Substring(partial)) }
        let tail = lines.suffix(Self.consoleTailLines)
        return tail.isEmpty ? "" : tail.joined(separator: "\n") + "\n"
    }
}
