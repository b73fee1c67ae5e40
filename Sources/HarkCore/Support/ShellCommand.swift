import Foundation

/// Runs `/bin/sh -c COMMAND`, for `cmd:` secrets, `!CMD` and `/pipe CMD`.
public enum ShellCommand {
    public struct Output: Sendable {
        public var status: Int32
        public var stdout: Data
        public var stderr: Data
    }

    public static func run(_ command: String, input: Data?, environment: [String: String]? = nil) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        if let environment { process.environment = environment }
        let stdout = Pipe()
        let stderr = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        do {
            try process.run()
        } catch {
            throw HarkError.io("cannot run /bin/sh: \(error.localizedDescription)")
        }
        // Feed stdin and drain both outputs concurrently so a large payload cannot deadlock.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        DispatchQueue.global().async(group: group) { outData = stdout.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errData = stderr.fileHandleForReading.readDataToEndOfFile() }
        if let input {
            let handle = stdin.fileHandleForWriting
            signal(SIGPIPE, SIG_IGN)
            try? handle.write(contentsOf: input)
            try? handle.close()
        }
        process.waitUntilExit()
        group.wait()
        return Output(status: process.terminationStatus, stdout: outData, stderr: errData)
    }
}
