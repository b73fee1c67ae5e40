import Foundation
import HarkCore

/// Runs the built binary as a user without privileges (uid and gid 65534, `nobody` on Debian)
/// through util-linux's `setpriv`: file modes mean nothing to root, so what they guard is
/// tested as a user they bind. Needs the tests to run as root (to switch users); elsewhere
/// such a test is skipped, saying so.
public enum UnprivilegedUser {
    public static let id: uid_t = 65534
    static let setpriv = "/usr/bin/setpriv"

    public static var isAvailable: Bool { geteuid() == 0 && FileManager.default.isExecutableFile(atPath: setpriv) }

    /// Hands `path` and everything under it to the user, so that it is theirs as a home is.
    public static func give(_ path: String) throws {
        let result = try Subprocess.run(["/bin/chown", "-R", "\(id):\(id)", path])
        guard result.status == 0 else { throw HarkError.io("chown \(path): \(String(decoding: result.stderr, as: UTF8.self))") }
    }

    /// The built `hark` with `arguments`, run as the user to its end, stdin empty.
    public static func hark(_ arguments: [String], _ environment: [String: String]) async throws -> HarkRun {
        let command = [setpriv, "--reuid=\(id)", "--regid=\(id)", "--clear-groups", BuiltProducts.hark] + arguments
        let result = try await offThePool { try Subprocess.run(command, environment: environment, streams: .captured(input: Data())) }
        return HarkRun(status: result.status, stdout: String(decoding: result.stdout, as: UTF8.self),
                       stderr: String(decoding: result.stderr, as: UTF8.self))
    }
}
