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
        var start = 0
        for index in 0..<chunk.count where chunk[index] == 0x0A {
            var line: [UInt8]
            if tail.isEmpty {
                line = Array(UnsafeBufferPointer(rebasing: chunk[start..<index]))
            } else {
                tail.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<index]))
                line = tail
                tail.removeAll(keepingCapacity: true)
            }
            start = index + 1
            if line.last == 0x0D { line.removeLast() }
            if !Self.isBlank(line) { lines.append(line) }
        }
        if start < chunk.count {
            tail.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<chunk.count]))
            if tail.count > maxLineBytes { throw .lineTooLarge(limit: maxLineBytes) }
        }
        return lines
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

    static func isBlank(_ line: [UInt8]) -> Bool {
        line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }
}
