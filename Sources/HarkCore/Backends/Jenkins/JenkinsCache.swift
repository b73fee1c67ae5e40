import FoundationEssentials
import Glibc

/// Answers kept for a short while, as the seed has it: the job list for 5 minutes, a job's
/// builds and state for 30 seconds. Tab completion reads job names from here (it may not
/// touch the network); `/refresh` empties it; a build started or ended drops its job.
final class JenkinsCache: @unchecked Sendable {
    static let jobListLifetime: TimeInterval = 300
    static let statusLifetime: TimeInterval = 30

    private let now: @Sendable () -> Date
    private let lock = Lock()
    private var jobList: (jobs: [JobSummary], at: Date)?
    private var details: [JobPath: (job: JobDetails, at: Date)] = [:]

    init(now: @escaping @Sendable () -> Date = HarkClock.system.now) {
        self.now = now
    }

    /// The cached job list while fresh.
    var jobs: [JobSummary]? {
        lock.withLock {
            guard let jobList, now().timeIntervalSince(jobList.at) < Self.jobListLifetime else { return nil }
            return jobList.jobs
        }
    }

    /// Job names for completion: even a stale list is better than none there.
    var knownJobNames: [String] { knownJobs.map(\.path.description) }

    /// The last job list, fresh or not: which parts of a typed name are one name.
    var knownJobs: [JobSummary] { lock.withLock { jobList?.jobs ?? [] } }

    func store(jobs: [JobSummary]) {
        lock.withLock { jobList = (jobs, now()) }
    }

    func job(_ path: JobPath) -> JobDetails? {
        lock.withLock {
            guard let entry = details[path], now().timeIntervalSince(entry.at) < Self.statusLifetime else { return nil }
            return entry.job
        }
    }

    func store(job: JobDetails) {
        lock.withLock { details[job.path] = (job, now()) }
    }

    /// A build of this job started or ended: its state and the list's ball colour are stale
    /// (the names in the list are not, so Tab keeps them).
    func invalidate(_ path: JobPath) {
        lock.withLock {
            details[path] = nil
            jobList?.at = .distantPast
        }
    }

    /// Everything is asked again; the names stay for Tab until a new list arrives.
    func clear() {
        lock.withLock {
            jobList?.at = .distantPast
            details = [:]
        }
    }
}
