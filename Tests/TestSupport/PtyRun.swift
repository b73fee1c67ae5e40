import Foundation
import HarkCore

/// One run of the built `hark` in a pseudo-terminal of its own, to its end: the exact bytes it
/// wrote to the terminal (stdout and stderr, as a terminal gets them), unlike tmux, which
/// interprets them. Its stdin is the terminal too, with nothing typed.
public struct PtyRun: Sendable {
    public var status: Int32
    public var bytes: [UInt8]
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    public enum Failure: Error { case pty(String) }

    public static func run(_ arguments: [String], _ environment: [String: String], columns: Int = 100,
                           rows: Int = 30) async throws -> PtyRun {
        try await offThePool { try runBlocking(arguments, environment, columns: columns, rows: rows) }
    }

    static func runBlocking(_ arguments: [String], _ environment: [String: String], columns: Int, rows: Int) throws -> PtyRun {
        // posix_openpt and friends are not imported into Swift here: the Linux ioctls they wrap,
        // TIOCSPTLCK and TIOCGPTN (_IOW('T', 0x31, int), _IOR('T', 0x30, unsigned int); macros
        // Swift cannot import).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            throw Failure.pty("no pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        defer { close(master) }
        let name = "/dev/pts/\(number)"
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        let slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else { throw Failure.pty("cannot open \(name)") }
        let pid: pid_t
        do {
            pid = try Subprocess.spawn([BuiltProducts.hark] + arguments, environment: environment,
                                       stdin: slave, stdout: slave, stderr: slave)
        } catch {
            close(slave)
            throw error
        }
        close(slave)
        // Read until the last holder of the terminal's other end closes it (EIO on Linux).
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(master, &buffer, buffer.count)
            if count > 0 {
                bytes += buffer[0..<count]
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return PtyRun(status: (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F), bytes: bytes)
    }

    /// What of its output a terminal would act on that hark's own rendering never writes:
    /// every escape sequence but its SGR (`ESC [ 0 … m`), erase-line and cursor-forward, any
    /// C1 control, any BEL. Empty when the run wrote nothing a server could have made.
    public var foreignSequences: [String] {
        var found: [String] = []
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\u{7}" || (0x80...0x9F).contains(scalar.value) {
                found.append("U+\(String(scalar.value, radix: 16))")
            } else if scalar == "\u{1B}" {
                var end = index + 1
                if end < scalars.count && scalars[end] == "[" {
                    end += 1
                    while end < scalars.count && !(0x40...0x7E).contains(scalars[end].value) { end += 1 }
                    let sequence = String(String.UnicodeScalarView(scalars[index...min(end, scalars.count - 1)]))
                    let body = sequence.dropFirst(2)
                    let own = body == "K" || body == "0m" || (body.hasPrefix("0;") && body.hasSuffix("m"))
                        || (body.hasSuffix("C") && body.dropLast().allSatisfy(\.isNumber))
                    if !own { found.append(sequence.debugDescription) }
                    index = end + 1
                    continue
                }
                found.append(String(String.UnicodeScalarView(scalars[index..<min(index + 6, scalars.count)])).debugDescription)
            }
            index += 1
        }
        return found
    }
}
