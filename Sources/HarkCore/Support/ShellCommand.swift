import FoundationEssentials
import Glibc

/// Runs `/bin/sh -c COMMAND`, for `cmd:` secrets, `!CMD` and `/pipe CMD`.
public enum ShellCommand {
    public typealias Output = Subprocess.Result

    public static func run(_ command: String, input: Data?, environment: [String: String]? = nil,
                           timeout: Double? = nil) throws -> Output {
        try Subprocess.run(["/bin/sh", "-c", command], environment: environment, streams: .captured(input: input),
                           timeout: timeout)
    }
}
