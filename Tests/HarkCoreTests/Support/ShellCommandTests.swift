import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// `!CMD` and `/pipe CMD` wait for their command on a thread of their own.
@Suite struct ShellCommandTests {
    /// More `!cat FIFO` commands at once than the concurrency pool has threads, each waiting
    /// until a task on the pool opens its FIFO: had the commands held the pool's threads, that
    /// task could never run and they would wait forever (the time limit cannot fire then
    /// either: it needs the pool too; the run hangs).
    @Test(.timeLimit(.minutes(3))) func bangCommandsLeaveTheConcurrencyPoolFree() async throws {
        let home = TestHome(config: "[session notes]\nkind = local\n")
        let workspace = try home.workspace()
        try workspace.switchSession(to: "notes")
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        let fifos = (0..<count).map { home.directory.file("fifo-\($0)") }
        for fifo in fifos { #expect(mkfifo(fifo, 0o600) == 0) }
        let texts = try await withThrowingTaskGroup(of: String.self) { group in
            for fifo in fifos {
                group.addTask {
                    guard case .reply(let job) = try await workspace.execute("!cat \(fifo)") else { return "" }
                    return "\(await job.wait())"
                }
            }
            group.addTask {
                // A writer opens without blocking only once the command's cat has opened its end.
                for fifo in fifos {
                    var fd: Int32 = -1
                    while fd < 0 {
                        fd = open(fifo, O_WRONLY | O_NONBLOCK)
                        if fd < 0 { await Task.yield() }
                    }
                    _ = "from \((fifo as NSString).lastPathComponent)".withCString { write(fd, $0, strlen($0)) }
                    close(fd)
                }
                return "writer"
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(texts.filter { $0 == "complete" }.count == count)
        let notes = try workspace.store.recentMessages(session: "notes", limit: 100).map(\.text)
        #expect(Set(notes) == Set(fifos.map { "from " + ($0 as NSString).lastPathComponent }))
    }
}
