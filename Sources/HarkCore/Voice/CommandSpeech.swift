import FoundationEssentials
import Glibc

/// Speech from a program the user names (`tts_command`), for Piper or any engine that reads the
/// text on stdin and writes audio on stdout: a WAV stream (its header gives rate and format), or
/// raw 16-bit little-endian mono samples at `tts_rate` (Piper's `--output-raw`). It runs through
/// /bin/sh once per sentence, in a process group of its own that is killed when speech stops.
/// The voice, rate and pitch settings reach it as HARK_VOICE, HARK_RATE and HARK_PITCH.
public final class CommandSpeech: SpeechSynthesizer, @unchecked Sendable {
    public static let shared = CommandSpeech()

    /// How often, without output, it asks whether to go on (so a stop is not held up by a slow engine).
    private static let checkMilliseconds: Int32 = 50

    public init() {}

    public func speak(_ text: String, parameters: VoiceParameters,
                      into consume: (_ samples: UnsafeBufferPointer<Int16>, _ sampleRate: Int) -> Bool) throws {
        guard let command = parameters.command else { return }
        var environment = ProcessInfo.processInfo.environment
        environment["HARK_VOICE"] = parameters.voice ?? ""
        environment["HARK_RATE"] = String(parameters.rate ?? 175)
        environment["HARK_PITCH"] = String(parameters.pitch ?? 50)
        let input = try Subprocess.pipe(), output = try Subprocess.pipe(), errors = try Subprocess.pipe()
        let pid: pid_t
        do {
            pid = try Subprocess.spawn(["/bin/sh", "-c", command], environment: environment,
                                       stdin: input.read, stdout: output.write, stderr: errors.write)
        } catch {
            for fd in [input.read, input.write, output.read, output.write, errors.read, errors.write] { close(fd) }
            throw error
        }
        for fd in [input.read, output.write, errors.write] { close(fd) }
        var run = Run(text: Array((text + "\n").utf8), input: input.write, output: output.read, errors: errors.read,
                      audio: StreamedAudio(rawRate: parameters.commandRate))
        let finished = run.pump(consume)
        run.closeAll()
        if !finished { kill(-pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if let problem = run.problem { throw problem }
        guard finished else { return }
        let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let said = run.lastError.map { ": " + $0 } ?? ""
        if code != 0 { throw HarkError.io("tts_command failed (exit status \(code))\(said)") }
        if !run.audio.hasAudio { throw HarkError.io("tts_command wrote no audio\(said)") }
    }

    /// One run of the command: the text in, the audio out, the last line of its errors kept.
    private struct Run {
        var text: [UInt8]
        var input: Int32
        var output: Int32
        var errors: Int32
        var audio: StreamedAudio
        var written = 0
        var errorText: [UInt8] = []
        var problem: HarkError?

        var lastError: String? {
            String(decoding: errorText, as: UTF8.self).split(separator: "\n").last.map { String($0.prefix(200)) }
        }

        /// Feeds and reads until the command's output ends (true) or `consume` says stop.
        mutating func pump(_ consume: (UnsafeBufferPointer<Int16>, Int) -> Bool) -> Bool {
            _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK)
            var buffer = [UInt8](repeating: 0, count: 16384)
            while output >= 0 {
                var fds = [pollfd(fd: output, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: errors, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: input, events: Int16(POLLOUT), revents: 0)]
                let ready = poll(&fds, nfds_t(fds.count), CommandSpeech.checkMilliseconds)
                if ready < 0 && errno != EINTR { return true }
                if ready <= 0 {
                    if !([] as [Int16]).withUnsafeBufferPointer({ consume($0, audio.rate) }) { return false }
                    continue
                }
                if fds[2].revents != 0 { feedText() }
                if fds[1].revents != 0 { readErrors(&buffer) }
                guard fds[0].revents != 0 else { continue }
                let count = read(output, &buffer, buffer.count)
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                if count <= 0 {
                    close(output)
                    output = -1
                    break
                }
                do {
                    let samples = try audio.feed(buffer[0..<count])
                    if !samples.isEmpty, !samples.withUnsafeBufferPointer({ consume($0, audio.rate) }) { return false }
                } catch {
                    problem = error as? HarkError ?? .io(error.userMessage)
                    return false
                }
            }
            return true
        }

        private mutating func feedText() {
            let count = text[written...].withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            if count > 0 { written += count }
            if written >= text.count || (count < 0 && errno != EAGAIN && errno != EINTR) {
                close(input)
                input = -1
            }
        }

        private mutating func readErrors(_ buffer: inout [UInt8]) {
            let count = read(errors, &buffer, buffer.count)
            if count > 0 {
                errorText = Array((errorText + buffer[0..<count]).suffix(2048))
            } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                close(errors)
                errors = -1
            }
        }

        mutating func closeAll() {
            for fd in [input, output, errors] where fd >= 0 { close(fd) }
            (input, output, errors) = (-1, -1, -1)
        }
    }
}

/// Audio read from a pipe piece by piece: a WAV stream, whose header comes first (its data size
/// is not relied on: a stream does not know it), else raw 16-bit little-endian mono samples at
/// a rate known beforehand. Mixed down to mono 16-bit samples.
struct StreamedAudio {
    private(set) var format: WAVFormat?
    private let rawRate: Int?
    private var pending: [UInt8] = []
    private(set) var hasAudio = false

    init(rawRate: Int?) {
        self.rawRate = rawRate
    }

    var rate: Int { format?.sampleRate ?? rawRate ?? 22050 }

    /// The whole samples in `bytes` and what came before them.
    mutating func feed(_ bytes: ArraySlice<UInt8>) throws -> [Int16] {
        pending += bytes
        if format == nil {
            guard let found = try header() else { return [] }
            format = found
        }
        guard let format else { return [] }
        let usable = pending.count - pending.count % max(format.bytesPerFrame, 1)
        guard usable > 0 else { return [] }
        let mono = WAVReader.decodeMono(pending[0..<usable], format: format)
        pending.removeFirst(usable)
        hasAudio = true
        return PCM.int16(mono)
    }

    /// The format, once enough has arrived to know it (the header read and dropped from
    /// `pending`); nil while more is needed.
    private mutating func header() throws -> WAVFormat? {
        guard pending.count >= 12 else { return nil }
        guard pending[0..<4].elementsEqual("RIFF".utf8) && pending[8..<12].elementsEqual("WAVE".utf8) else {
            guard let rawRate else {
                throw HarkError.usage("tts_command's output is not WAV; if it writes raw 16-bit mono samples, "
                    + "set tts_rate to their sample rate")
            }
            return WAVFormat(encoding: .integer, sampleRate: rawRate, channels: 1, bitsPerSample: 16)
        }
        var offset = 12
        var found: WAVFormat?
        while pending.count >= offset + 8 {
            let id = String(decoding: pending[offset..<(offset + 4)], as: UTF8.self)
            let size = Int(WAVReader.uint32(pending, offset + 4))
            if id == "data" {
                guard let found else { throw HarkError.usage("tts_command's WAV has its data before its format") }
                pending.removeFirst(offset + 8)
                return found
            }
            let padded = size + size % 2
            guard pending.count >= offset + 8 + padded else { return nil }
            if id == "fmt " {
                found = try WAVReader.parseFormat(Array(pending[(offset + 8)..<(offset + 8 + size)])) { reason in
                    HarkError.usage("tts_command's WAV is not one hark can play: \(reason)")
                }
            }
            offset += 8 + padded
        }
        return nil
    }
}
