import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// WAV files of the kinds people have, and the resampler that brings them to the model's rate.
@Suite struct AudioFormatTests {
    /// A tone as floats in -1…1.
    func tone(frequency: Double, rate: Int, seconds: Double, amplitude: Double = 0.5) -> [Double] {
        (0..<Int(Double(rate) * seconds)).map { amplitude * sin(2 * .pi * frequency * Double($0) / Double(rate)) }
    }

    /// A WAV file built byte by byte, as other programs write them.
    func wavBytes(tag: Int, bits: Int, rate: Int, channels: [[Double]], extensible: Bool = false,
                  extraChunk: Bool = false) -> [UInt8] {
        var data: [UInt8] = []
        for frame in 0..<channels[0].count {
            for channel in channels {
                let value = channel[frame]
                switch (tag, bits) {
                case (1, 8): data.append(UInt8(max(0, min(255, (value * 128 + 128).rounded()))))
                case (1, 16): withUnsafeBytes(of: Int16((value * 32767).rounded()).littleEndian) { data += $0 }
                case (1, 24):
                    let sample = Int32((value * 8_388_607).rounded())
                    data += [UInt8(truncatingIfNeeded: sample), UInt8(truncatingIfNeeded: sample >> 8), UInt8(truncatingIfNeeded: sample >> 16)]
                case (3, 32): withUnsafeBytes(of: Float(value).bitPattern.littleEndian) { data += $0 }
                default: withUnsafeBytes(of: value.bitPattern.littleEndian) { data += $0 }
                }
            }
        }
        var fmt: [UInt8] = []
        func u16(_ value: Int, into bytes: inout [UInt8]) { withUnsafeBytes(of: UInt16(value).littleEndian) { bytes += $0 } }
        func u32(_ value: Int, into bytes: inout [UInt8]) { withUnsafeBytes(of: UInt32(value).littleEndian) { bytes += $0 } }
        u16(extensible ? 0xFFFE : tag, into: &fmt)
        u16(channels.count, into: &fmt)
        u32(rate, into: &fmt)
        u32(rate * channels.count * bits / 8, into: &fmt)
        u16(channels.count * bits / 8, into: &fmt)
        u16(bits, into: &fmt)
        if extensible {
            u16(22, into: &fmt)
            u16(bits, into: &fmt)
            u32(0, into: &fmt)
            u16(tag, into: &fmt)
            fmt += [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        }
        var file = Array("RIFF".utf8)
        var body = Array("WAVE".utf8)
        body += Array("fmt ".utf8)
        u32(fmt.count, into: &body)
        body += fmt
        if extraChunk {
            body += Array("LIST".utf8)
            u32(3, into: &body)
            body += [1, 2, 3, 0]  // odd size: padded to even
        }
        body += Array("data".utf8)
        u32(data.count, into: &body)
        body += data
        u32(body.count, into: &file)
        return file + body
    }

    @Test(arguments: [(1, 8), (1, 16), (1, 24), (3, 32), (3, 64)])
    func everyCommonSampleFormatReadsBackAsTheSameSound(tag: Int, bits: Int) throws {
        let directory = TemporaryDirectory()
        let left = tone(frequency: 440, rate: 8000, seconds: 0.5)
        let right = left.map { -$0 * 0.5 }
        let path = directory.file("tone.wav")
        _ = FileManager.default.createFile(atPath: path, contents: Data(wavBytes(tag: tag, bits: bits, rate: 8000,
                                                                             channels: [left, right], extraChunk: true)))
        let reader = try WAVReader(path: path)
        #expect(reader.format == WAVFormat(encoding: tag == 3 ? .float : .integer, sampleRate: 8000, channels: 2, bitsPerSample: bits))
        #expect(reader.frameCount == 4000)
        var mono: [Float] = []
        while true {
            let block = reader.readMono(frames: 1234)
            if block.isEmpty { break }
            mono += block
        }
        #expect(mono.count == 4000)
        // Mixed down: the average of the two channels, a quarter of the tone.
        let tolerance: Float = bits == 8 ? 0.02 : 0.001
        for index in stride(from: 0, to: 4000, by: 97) {
            #expect(abs(mono[index] - Float(left[index] * 0.25)) < tolerance, "frame \(index)")
        }
    }

    @Test func extensibleFormatAndUnusableFilesAreToldApart() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("ext.wav")
        _ = FileManager.default.createFile(atPath: path, contents: Data(wavBytes(tag: 1, bits: 16, rate: 48000,
                                                                             channels: [tone(frequency: 100, rate: 48000, seconds: 0.1)],
                                                                             extensible: true)))
        #expect(try WAVReader(path: path).format.sampleRate == 48000)
        let text = directory.write("notes.wav", "just some text, not audio")
        #expect(throws: HarkError.self) { try WAVReader(path: text) }
        do {
            _ = try WAVReader(path: text)
        } catch {
            #expect(error.userMessage.contains("is not a WAV file hark can read: no RIFF/WAVE header"))
        }
        do {
            _ = try WAVReader(path: directory.file("missing.wav"))
        } catch {
            #expect(error.userMessage.hasSuffix("missing.wav: no such file"))
        }
    }

    @Test func whatHarkWritesItReads() throws {
        let directory = TemporaryDirectory()
        let samples: [Int16] = [0, 1000, -1000, 32767, -32768, 5]
        let path = directory.file("out.wav")
        try WAVWriter.write(samples, sampleRate: 22050, to: path)
        let reader = try WAVReader(path: path)
        #expect(reader.format == WAVFormat(encoding: .integer, sampleRate: 22050, channels: 1, bitsPerSample: 16))
        #expect(PCM.int16(reader.readMono(frames: 100)) == samples)
        let sox = try Subprocess.run(["soxi", "-r", path])
        if sox.status == 0 { #expect(String(decoding: sox.stdout, as: UTF8.self).trimmed == "22050", "sox agrees") }
    }

    /// Zero crossings per second: twice the frequency of a pure tone.
    func crossings(_ samples: [Float], rate: Int) -> Double {
        var count = 0
        for index in 1..<samples.count where (samples[index - 1] < 0) != (samples[index] < 0) { count += 1 }
        return Double(count) / (Double(samples.count) / Double(rate))
    }

    @Test(arguments: [(22050, 16000), (44100, 16000), (48000, 16000), (8000, 16000), (16000, 16000)])
    func resamplingKeepsPitchLoudnessAndLength(from input: Int, to output: Int) {
        let source = tone(frequency: 1000, rate: input, seconds: 1).map(Float.init)
        var resampler = Resampler(from: input, to: output)
        var result: [Float] = []
        // Fed in uneven blocks, as a file is read.
        var offset = 0
        var size = 1
        while offset < source.count {
            let end = min(source.count, offset + size)
            result += resampler.process(Array(source[offset..<end]))
            offset = end
            size = size * 3 % 4001 + 1
        }
        result += resampler.finish()
        #expect(result.count == output, "one second in, one second out")
        let middle = Array(result[output / 10..<(output * 9 / 10)])
        #expect(abs(crossings(middle, rate: output) - 2000) < 10, "still 1 kHz")
        let peak = middle.map(abs).max() ?? 0
        #expect(abs(peak - 0.5) < 0.02, "same loudness: \(peak)")
    }

    @Test func downsamplingRemovesWhatTheNewRateCannotHold() {
        // 7 kHz cannot exist at 8 kHz: it must not fold back as a 1 kHz tone.
        let source = tone(frequency: 7000, rate: 22050, seconds: 0.5).map(Float.init)
        var resampler = Resampler(from: 22050, to: 8000)
        let result = resampler.process(source) + resampler.finish()
        let middle = result[800..<3200]
        let rms = (middle.map { Double($0 * $0) }.reduce(0, +) / Double(middle.count)).squareRoot()
        #expect(rms < 0.01, "aliasing left at \(rms)")
    }
}
