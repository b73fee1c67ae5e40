import CZlib

/// Inflates a gzip or zlib ("deflate") encoded body as it streams in, for the built-in HTTP
/// transport (libcurl decodes its own).
final class GzipDecoder {
    private var stream = z_stream()
    private var finished = false

    init() throws {
        // 15 window bits + 32: detect gzip or zlib headers automatically.
        guard hark_inflate_init(&stream, 15 + 32) == Z_OK else {
            throw HarkError.protocolViolation("cannot start decompressing the response")
        }
    }

    deinit { inflateEnd(&stream) }

    func decode(_ input: UnsafeBufferPointer<UInt8>) throws -> [UInt8] {
        guard !input.isEmpty, !finished else { return [] }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
        stream.avail_in = uInt(input.count)
        repeat {
            let produced: Int = try chunk.withUnsafeMutableBufferPointer { buffer in
                stream.next_out = buffer.baseAddress
                stream.avail_out = uInt(buffer.count)
                let code = inflate(&stream, Z_NO_FLUSH)
                if code == Z_STREAM_END {
                    finished = true
                } else if code != Z_OK && code != Z_BUF_ERROR {
                    throw HarkError.protocolViolation("the server sent a body that does not decode (bad gzip)")
                }
                return buffer.count - Int(stream.avail_out)
            }
            output.append(contentsOf: chunk[0..<produced])
        } while stream.avail_out == 0 && !finished
        return output
    }
}
