import FoundationEssentials
import Glibc

/// Runs `/bin/sh -c COMMAND`, for `cmd:` secrets, `!CMD` and `/pipe CMD`.
public enum ShellCommand {
    public typealias Output = Subprocess.Result

    public static func run(_ command: String, input: Data?, environment: [String: String]? = nil,
                           timeout: Double? = nil, outputLimit: Int? = nil) throws -> Output {
        try Subprocess.run(["/bin/sh", "-c", command], environment: environment, streams: .captured(input: input),
                           timeout: timeout, outputLimit: outputLimit)
    }

    /// The same from async code (`!CMD`, `/pipe CMD`): the command runs on a thread of its
    /// own, not on one of the concurrency pool's.
    public static func output(_ command: String, input: Data?) async throws -> Output {
        try await Threads.run(name: "hark-command") { try run(command, input: input) }
    }
}
