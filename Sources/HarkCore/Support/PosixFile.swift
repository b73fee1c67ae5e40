import FoundationEssentials
import Glibc

/// An open file read or written with POSIX calls, in place of corelibs Foundation's
/// FileHandle (see Lock.swift for why hark does without it).
public final class PosixFile {
    public let descriptor: Int32
    private var closed = false

    /// Opens `path` for reading; nil when it cannot be opened (errno says why).
    public init?(readingAtPath path: String) {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 { return nil }
    }

    /// Creates or truncates `path` for writing, readable by its owner only when `private`.
    public init?(writingAtPath path: String, private isPrivate: Bool = false) {
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, isPrivate ? 0o600 : 0o644)
        if descriptor < 0 { return nil }
    }

    /// Writes `bytes` to `path` for exports and the like: a new file is the user's alone
    /// (0600, whatever the umask), as what it holds comes from the private history; a file
    /// that is there already keeps the mode its owner gave it.
    public static func writePrivately(_ bytes: [UInt8], to path: String) throws {
        var descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            _ = fchmod(descriptor, 0o600)
        } else if errno == EEXIST {
            descriptor = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        }
        guard descriptor >= 0 else { throw HarkError.io("cannot write \(path): \(String(cString: strerror(errno)))") }
        let file = PosixFile(owning: descriptor)
        try file.write(bytes)
    }

    private init(owning descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Wraps a descriptor this process already has, such as standard input; not closed by deinit.
    public init(borrowing descriptor: Int32) {
        self.descriptor = descriptor
        closed = true
    }

    deinit { close() }

    /// Up to `count` bytes; fewer only at the end of the file.
    public func read(count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress! + filled, count - filled)
            }
            if got < 0 && errno == EINTR { continue }
            if got <= 0 { break }
            filled += got
        }
        bytes.removeSubrange(filled...)
        return bytes
    }

    /// Everything up to the end of the file, read in 64 KB blocks.
    public func readToEnd() -> [UInt8] {
        var all: [UInt8] = []
        while true {
            let block = read(count: 65_536)
            all += block
            if block.count < 65_536 { return all }
        }
    }

    public func write(_ bytes: some Collection<UInt8>) throws {
        let array = Array(bytes)
        var written = 0
        while written < array.count {
            let count = array.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, array.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw HarkError.io("cannot write: " + String(cString: strerror(errno))) }
            written += count
        }
    }

    public var offset: UInt64 { UInt64(max(lseek(descriptor, 0, SEEK_CUR), 0)) }

    public func seek(to offset: UInt64) { lseek(descriptor, off_t(offset), SEEK_SET) }

    /// Moves to the end; returns the file's size.
    @discardableResult
    public func seekToEnd() -> UInt64 { UInt64(max(lseek(descriptor, 0, SEEK_END), 0)) }

    public func close() {
        guard !closed else { return }
        closed = true
        _ = Glibc.close(descriptor)
    }
}
