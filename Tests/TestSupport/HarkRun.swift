import Foundation
import HarkCore

/// One run of the built `hark` binary in a test home: its exit status and what it printed.
public struct HarkRun: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    public init(_ arguments: [String], home: TestHome, input: String? = nil) throws {
        let result = try Subprocess.run([BuiltProducts.hark] + arguments, environment: home.environment,
                                        streams: .captured(input: input.map { Data($0.utf8) } ?? Data()))
        status = result.status
        stdout = String(decoding: result.stdout, as: UTF8.self)
        stderr = String(decoding: result.stderr, as: UTF8.self)
    }
}
