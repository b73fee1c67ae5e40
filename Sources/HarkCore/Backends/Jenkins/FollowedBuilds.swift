import FoundationEssentials
import Glibc

/// The builds this session is following right now (in the foreground or the background),
/// so `/stop-build` without arguments knows which one is meant, and `/info` can list them.
final class FollowedBuilds: @unchecked Sendable {
    struct Entry: Sendable, Equatable {
        var id: Int
        var job: JobPath
        var queueID: Int?
        var number: Int?

        var label: String { number.map { "\(job) #\($0)" } ?? "\(job) (queued)" }
    }

    private let lock = Lock()
    private var entries: [Entry] = []
    private var nextID = 1

    var all: [Entry] { lock.withLock { entries } }

    func begin(_ job: JobPath, queueID: Int?, number: Int?) -> Int {
        lock.withLock {
            defer { nextID += 1 }
            entries.append(Entry(id: nextID, job: job, queueID: queueID, number: number))
            return nextID
        }
    }

    func started(_ id: Int, number: Int) {
        lock.withLock {
            if let index = entries.firstIndex(where: { $0.id == id }) { entries[index].number = number }
        }
    }

    func end(_ id: Int) {
        lock.withLock { entries.removeAll { $0.id == id } }
    }
}
