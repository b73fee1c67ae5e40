import Foundation
import HarkCore

/// One run of the built `hark` binary to its end, off the concurrency pool, with `input` on
/// its stdin (empty by default: a pipe that ends at once).
public struct HarkRun: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var output: String { stdout + stderr }

    public static func run(_ arguments: [String], _ environment: [String: String], input: [UInt8] = []) async throws -> HarkRun {
        let result = try await offThePool {
            try Subprocess.run([BuiltProducts.hark] + arguments, environment: environment, streams: .captured(input: Data(input)))
        }
        return HarkRun(status: result.status, stdout: String(decoding: result.stdout, as: UTF8.self),
                       stderr: String(decoding: result.stderr, as: UTF8.self))
    }
}
