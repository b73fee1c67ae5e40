import Foundation
import HarkCore

/// A private PulseAudio server for one test: no sound card needed (a null sink, whose monitor
/// is the default source, so what is played into the sink can be recorded back), its own
/// runtime folder and socket, stopped by its PID when released. Works as root, as on CI.
public final class TestPulseAudio: @unchecked Sendable {
    public let directory = TemporaryDirectory("hark-pulse")
    private let pid: pid_t

    public enum Failure: Error, CustomStringConvertible {
        case start(String)
        case play(String)
        public var description: String {
            switch self {
            case .start(let log): return "PulseAudio did not start: \(log)"
            case .play(let reason): return "paplay failed: \(reason)"
            }
        }
    }

    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/pulseaudio")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/paplay")
    }

    /// The address clients use (PULSE_SERVER).
    public var server: String { "unix:" + directory.path + "/native" }

    /// The environment that points a hark process (or paplay) at this server.
    public func environment(_ base: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        var environment = base
        environment["PULSE_SERVER"] = server
        return environment
    }

    public init() throws {
        let dir = directory.path
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = dir
        environment["PULSE_RUNTIME_PATH"] = dir
        environment["PULSE_STATE_PATH"] = dir
        environment["XDG_RUNTIME_DIR"] = dir
        // --daemonize=yes returns once the server is ready to serve: no waiting on a socket.
        let result = try Subprocess.run([
            "/usr/bin/pulseaudio", "--daemonize=yes", "--exit-idle-time=-1", "-n", "--use-pid-file=yes",
            "--log-target=file:\(dir)/log",
            "--load=module-native-protocol-unix socket=\(dir)/native auth-anonymous=1",
            "--load=module-null-sink sink_name=hark_test norewinds=1",
        ], environment: environment, streams: .discarded)  // the daemon must not hold a pipe of ours open
        let pidText = (try? String(contentsOfFile: dir + "/pid", encoding: .utf8))?.trimmed ?? ""
        guard result.status == 0, let pid = pid_t(pidText) else {
            let log = (try? String(contentsOfFile: dir + "/log", encoding: .utf8)) ?? ""
            throw Failure.start("status \(result.status); " + log)
        }
        self.pid = pid
    }

    deinit {
        kill(pid, SIGTERM)
    }

    /// Plays a WAV file into the null sink and returns when it has been played.
    public func play(_ path: String) async throws {
        let environment = self.environment()
        // paplay blocks until the sound has been played.
        let result = try await offThePool { try Subprocess.run(["/usr/bin/paplay", path], environment: environment) }
        guard result.status == 0 else { throw Failure.play(String(decoding: result.stderr, as: UTF8.self)) }
    }
}
