import FoundationEssentials
import Glibc

/// What a WAV file holds, from its `fmt ` chunk.
public struct WAVFormat: Sendable, Equatable {
    public enum Encoding: Sendable, Equatable {
        /// Signed integers (unsigned for 8 bits), little-endian.
        case integer
        case float
    }

    public var encoding: Encoding
    public var sampleRate: Int
    public var channels: Int
    public var bitsPerSample: Int

    public var bytesPerFrame: Int { channels * bitsPerSample / 8 }
}

/// Reads a WAV file of any common kind (8/16/24/32-bit integer or 32/64-bit float PCM, any
/// rate, any channel count, WAVE_FORMAT_EXTENSIBLE too) block by block, mixed down to mono
/// floats in -1…1, so a long recording never has to fit in memory at once.
public final class WAVReader {
    public let format: WAVFormat
    /// Frames in the data chunk.
    public let frameCount: Int
    private let handle: PosixFile
    private var remainingBytes: Int
    private let path: String

    public init(path: String) throws {
        self.path = path
        guard let handle = PosixFile(readingAtPath: path) else {
            throw HarkError.io("cannot read \(path): " + (FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file"))
        }
        self.handle = handle
        func fail(_ reason: String) -> HarkError { HarkError.usage("\(path) is not a WAV file hark can read: \(reason)") }
        let header = handle.read(count: 12)
        guard header.count == 12, header[0..<4].elementsEqual("RIFF".utf8) || header[0..<4].elementsEqual("RF64".utf8),
              header[8..<12].elementsEqual("WAVE".utf8) else {
            throw fail("no RIFF/WAVE header (convert it with: sox \(path.lastPathComponent) out.wav)")
        }
        var format: WAVFormat?
        while true {
            let chunk = handle.read(count: 8)
            guard chunk.count == 8 else { throw fail(format == nil ? "no fmt chunk" : "no data chunk") }
            let id = String(decoding: chunk[0..<4], as: UTF8.self)
            var size = Int(Self.uint32(chunk, 4))
            if id == "fmt " {
                let body = handle.read(count: size + size % 2)
                guard body.count >= 16 else { throw fail("a short fmt chunk") }
                format = try Self.parseFormat(body, fail: fail)
            } else if id == "data" {
                guard let format else { throw fail("the data chunk comes before fmt") }
                // Streamed WAVs (and RF64) may leave the size at 0 or 0xFFFFFFFF: read to the end.
                if size == 0 || size == 0xFFFF_FFFF {
                    let here = handle.offset
                    size = Int(handle.seekToEnd() - here)
                    handle.seek(to: here)
                }
                self.format = format
                frameCount = size / max(format.bytesPerFrame, 1)
                remainingBytes = frameCount * format.bytesPerFrame
                return
            } else {
                handle.seek(to: handle.offset + UInt64(size + size % 2))
            }
        }
    }

    deinit { handle.close() }

    public var duration: Double { Double(frameCount) / Double(format.sampleRate) }

    /// Up to `frames` frames mixed down to mono; empty at the end.
    public func readMono(frames: Int) -> [Float] {
        let wanted = min(frames * format.bytesPerFrame, remainingBytes)
        guard wanted > 0 else { return [] }
        let bytes = handle.read(count: wanted)
        remainingBytes -= wanted
        let usable = bytes.count - bytes.count % format.bytesPerFrame
        if bytes.count < wanted { remainingBytes = 0 }
        return Self.decodeMono(bytes[0..<usable], format: format)
    }

    static func parseFormat(_ body: [UInt8], fail: (String) -> HarkError) throws -> WAVFormat {
        var tag = Int(uint16(body, 0))
        let channels = Int(uint16(body, 2))
        let rate = Int(uint32(body, 4))
        let bits = Int(uint16(body, 14))
        if tag == 0xFFFE, body.count >= 26 {
            tag = Int(uint16(body, 24))  // the sub-format GUID starts with the plain tag
        }
        guard channels > 0, rate > 0 else { throw fail("\(channels) channels at \(rate) Hz") }
        switch (tag, bits) {
        case (1, 8), (1, 16), (1, 24), (1, 32):
            return WAVFormat(encoding: .integer, sampleRate: rate, channels: channels, bitsPerSample: bits)
        case (3, 32), (3, 64):
            return WAVFormat(encoding: .float, sampleRate: rate, channels: channels, bitsPerSample: bits)
        default:
            throw fail("format \(tag) with \(bits) bits is not PCM (convert it with: sox IN.wav -b 16 OUT.wav)")
        }
    }

    /// Little-endian samples to mono floats: each frame's channels averaged.
    static func decodeMono(_ bytes: ArraySlice<UInt8>, format: WAVFormat) -> [Float] {
        let width = format.bitsPerSample / 8
        let channels = format.channels
        let frames = bytes.count / (width * channels)
        var mono = [Float](repeating: 0, count: frames)
        bytes.withUnsafeBytes { raw in
            let base = raw.baseAddress!
            for frame in 0..<frames {
                var sum: Float = 0
                for channel in 0..<channels {
                    let offset = (frame * channels + channel) * width
                    sum += sample(at: base + offset, width: width, encoding: format.encoding)
                }
                mono[frame] = sum / Float(channels)
            }
        }
        return mono
    }

    @inline(__always)
    static func sample(at pointer: UnsafeRawPointer, width: Int, encoding: WAVFormat.Encoding) -> Float {
        switch (encoding, width) {
        case (.integer, 1): return (Float(pointer.load(as: UInt8.self)) - 128) / 128
        case (.integer, 2): return Float(Int16(littleEndian: pointer.loadUnaligned(as: Int16.self))) / 32768
        case (.integer, 3):
            let bytes = pointer.assumingMemoryBound(to: UInt8.self)
            let value = Int32(bitPattern: UInt32(bytes[0]) << 8 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 24) >> 8
            return Float(value) / 8_388_608
        case (.integer, _): return Float(Double(Int32(littleEndian: pointer.loadUnaligned(as: Int32.self))) / 2_147_483_648)
        case (.float, 4): return Float(bitPattern: UInt32(littleEndian: pointer.loadUnaligned(as: UInt32.self)))
        default: return Float(Double(bitPattern: UInt64(littleEndian: pointer.loadUnaligned(as: UInt64.self))))
        }
    }

    static func uint16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
}

/// Writes 16-bit PCM WAV files (what speech synthesis produces).
public enum WAVWriter {
    /// A complete file: header and samples, `channels` interleaved.
    public static func encode(_ samples: [Int16], sampleRate: Int, channels: Int = 1) -> [UInt8] {
        let dataSize = samples.count * 2
        var bytes: [UInt8] = []
        bytes.reserveCapacity(44 + dataSize)
        func append32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { bytes += $0 } }
        func append16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { bytes += $0 } }
        bytes += Array("RIFF".utf8)
        append32(36 + dataSize)
        bytes += Array("WAVEfmt ".utf8)
        append32(16)
        append16(1)
        append16(channels)
        append32(sampleRate)
        append32(sampleRate * channels * 2)
        append16(channels * 2)
        append16(16)
        bytes += Array("data".utf8)
        append32(dataSize)
        samples.withUnsafeBytes { raw in
            if 1.littleEndian == 1 {
                bytes += raw
            } else {
                for sample in samples { withUnsafeBytes(of: sample.littleEndian) { bytes += $0 } }
            }
        }
        return bytes
    }

    /// Writes the file (or stdout for "-").
    public static func write(_ samples: [Int16], sampleRate: Int, to path: String) throws {
        let bytes = encode(samples, sampleRate: sampleRate)
        if path == "-" {
            try? PosixFile(borrowing: STDOUT_FILENO).write(bytes)  // a reader gone away (EPIPE) is not an error
            return
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw HarkError.io("cannot write \(path); check that its folder exists and is writable")
        }
    }
}
