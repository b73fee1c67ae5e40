import FoundationEssentials
import Glibc

extension WorkWatcher {
    /// `hark watch`: follows everything followed now, and whatever an exiting hark leaves
    /// later (looked for every `rescan` seconds), until cancelled. With `pushes` (the work a
    /// push listener stored an update for), a task sent with a push token is looked at once,
    /// for what came while nobody listened, and after that only when a push for it comes.
    public func run(pushes: AsyncStream<Int64>?, rescan: Double = 30) async {
        let inFlight = Locked([Int64: Task<Void, Never>]())
        var lookedAt = Set<Int64>()
        let pushed = pushes.map { stream in
            Task {
                for await id in stream {
                    guard let work = try? store.work(id: id), work.state == .followed else { continue }
                    await check(work, askServer: false)
                }
            }
        }
        defer {
            pushed?.cancel()
            for task in inFlight.read({ Array($0.values) }) { task.cancel() }
        }
        while !Task.isCancelled {
            for work in (try? store.followedWork()) ?? [] {
                if pushes != nil, work.pushToken != nil {
                    if lookedAt.insert(work.id).inserted { inFlight.update { $0[-work.id] = Task { await self.check(work, askServer: true) } } }
                    continue
                }
                guard inFlight.read({ $0[work.id] == nil }) else { continue }
                inFlight.update { running in
                    running[work.id] = Task {
                        await self.follow(work)
                        inFlight.update { $0[work.id] = nil }
                    }
                }
            }
            guard (try? await workspace.environment.clock.sleep(rescan)) != nil else { return }
        }
    }
}
