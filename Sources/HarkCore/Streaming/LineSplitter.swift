/// Splits a byte stream into lines at "\n" (dropping a "\r" before it), keeping the partial
/// tail between reads. Used for n8n's newline-delimited JSON, where chunk boundaries fall
/// anywhere, including inside a JSON string or a multi-byte UTF-8 character.
public struct LineSplitter: Sendable {
    private var tail: [UInt8] = []
    private let maxLineBytes: Int

    public enum Failure: Error, Sendable, Equatable {
        case lineTooLarge(limit: Int)
    }

    public init(maxLineBytes: Int = 32 << 20) {
        self.maxLineBytes = maxLineBytes
    }

    /// Complete lines in this chunk; blank (whitespace-only) lines are skipped.
    public mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>) throws(Failure) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        do {
            try feed(chunk) { line in lines.append(Array(line)) }
        } catch let failure as Failure {
            throw failure
        } catch {
            preconditionFailure("the collecting handler does not throw")
        }
        return lines
    }

    /// Calls `handle` with each complete, non-blank line (its "\r" dropped), found with memchr
    /// and passed as a view valid only during the call: no array per line.
    /// Throws `Failure` or what `handle` throws.
    public mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>, _ handle: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        var start = 0
        while let end = chunk.firstOffset(of: 0x0A, from: start, to: chunk.count) {
            if tail.isEmpty {
                try Self.emit(UnsafeBufferPointer(rebasing: chunk[start..<end]), handle)
            } else {
                tail.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<end]))
                let line = tail
                tail.removeAll(keepingCapacity: true)
                try line.withUnsafeBufferPointer { line in try Self.emit(line, handle) }
            }
            start = end + 1
        }
        if start < chunk.count {
            tail.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<chunk.count]))
            if tail.count > maxLineBytes { throw Failure.lineTooLarge(limit: maxLineBytes) }
        }
    }

    private static func emit(_ line: UnsafeBufferPointer<UInt8>, _ handle: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        let trimmed = line.last == 0x0D ? UnsafeBufferPointer(rebasing: line.dropLast()) : line
        if !isBlank(trimmed) { try handle(trimmed) }
    }

    public mutating func feed(_ bytes: [UInt8]) throws(Failure) -> [[UInt8]] {
        try bytes.withUnsafeBufferPointer { buffer throws(Failure) in try feed(buffer) }
    }

    /// The stream ended: the unterminated last line, if it holds anything.
    public mutating func finish() -> [UInt8]? {
        defer { tail.removeAll() }
        var line = tail
        if line.last == 0x0D { line.removeLast() }
        return Self.isBlank(line) ? nil : line
    }

    /// True until the first non-blank byte: lets a caller decide a stream's format by its start.
    public var pendingBytes: [UInt8] { tail }

    static func isBlank<Bytes: Collection<UInt8>>(_ line: Bytes) -> Bool {
        line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }
}
