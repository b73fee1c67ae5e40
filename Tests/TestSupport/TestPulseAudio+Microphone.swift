import Foundation
import HarkCore

/// A microphone for a test with no sound card: PulseAudio's `module-pipe-source` reads what the
/// test writes into a FIFO as if it were recorded. It only records while something is written,
/// so this feeds it in real time, 20 ms at a time: the queued speech, else silence.
public final class MicrophoneFeed: @unchecked Sendable {
    public static let rate = 16000
    private let condition = Condition()
    private var queue: [Int16] = []
    private var closed = false
    private let descriptor: Int32

    init(fifo: String) throws {
        BrokenPipes.ignore()
        descriptor = open(fifo, O_WRONLY)
        guard descriptor >= 0 else { throw TestPulseAudio.Failure.start("cannot open the microphone's pipe \(fifo)") }
        Thread { [self] in run() }.start()
    }

    deinit { close() }

    public func close() {
        let open: Bool = condition.withLock {
            defer { closed = true; condition.broadcast() }
            return !closed
        }
        if open { Glibc.close(descriptor) }
    }

    /// Queues 16 kHz mono samples to be "said" after what is queued already.
    public func say(_ samples: [Int16]) {
        condition.withLock {
            queue += samples
            condition.broadcast()
        }
    }

    public func silence(seconds: Double) { say([Int16](repeating: 0, count: Int(seconds * Double(Self.rate)))) }

    /// Returns once everything queued has gone into the microphone.
    public func waitUntilSaid() async throws {
        try await offThePool { [self] in
            condition.withLock { while !queue.isEmpty && !closed { condition.wait() } }
        }
    }

    /// Korean speech from espeak-ng, resampled to the microphone's rate.
    public static func korean(_ text: String) throws -> [Int16] {
        let (samples, rate) = try VoiceTestAssets.koreanSpeech(text)
        var resampler = Resampler(from: rate, to: Self.rate)
        let floats = samples.withUnsafeBufferPointer { PCM.float($0) }
        return PCM.int16(resampler.process(floats) + resampler.finish())
    }

    /// The device's clock: one block every 20 ms, whatever the test does meanwhile.
    private func run() {
        let block = Self.rate / 50
        var due = Date()
        while true {
            let samples: [Int16]? = condition.withLock {
                if closed { return nil }
                let taken = Array(queue.prefix(block))
                queue.removeFirst(taken.count)
                if queue.isEmpty { condition.broadcast() }
                return taken + [Int16](repeating: 0, count: block - taken.count)
            }
            guard let samples else { return }
            let written = samples.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 { return }
            due += 0.02
            let ahead = due.timeIntervalSinceNow
            if ahead > 0 { usleep(useconds_t(ahead * 1_000_000)) }
        }
    }
}

/// The levels of what the sound server plays, in 50 ms blocks with the time each was read,
/// recorded from the null sink's monitor on a thread of its own until released.
public final class SinkMonitor: @unchecked Sendable {
    fileprivate let lock = NSCondition()
    fileprivate var recorded: [(time: Date, level: Double)] = []
    fileprivate var stopped = false

    init(server: String) throws {
        let source = try AudioDevices(pulseServer: server).openInput(sampleRate: 16000)
        Thread { [self] in
            var block = [Int16](repeating: 0, count: 800)
            while !lock.withLock({ stopped }) {
                guard (try? block.withUnsafeMutableBufferPointer { try source.read(into: $0) }) != nil else { return }
                let level = block.withUnsafeBufferPointer { PCM.level($0) }
                lock.withLock {
                    recorded.append((Date(), level))
                    lock.broadcast()
                }
            }
        }.start()
    }

    deinit { stop() }

    public func stop() { lock.withLock { stopped = true } }

    /// Whether a block louder than `level` dBFS is read from `start` on, waiting for it up to
    /// `seconds`: on a loaded machine the monitor reads what played some time after it played.
    public func hears(above level: Double, after start: Date, within seconds: Double = 60) async throws -> Bool {
        try await offThePool { [self] in
            let deadline = Date().addingTimeInterval(seconds)
            return lock.withLock {
                while !recorded.contains(where: { $0.time >= start && $0.level > level }) {
                    if stopped || !lock.wait(until: deadline) { return false }
                }
                return true
            }
        }
    }
}

extension SinkMonitor {
    /// When the sink fell quiet after `start`: the read time of the first block of a run under
    /// `level` dBFS lasting `seconds`, waiting for such a run up to `within`; nil without one.
    public func quiet(below level: Double, after start: Date, lasting seconds: Double, within: Double = 60) async throws -> Date? {
        try await offThePool { [self] in
            let deadline = Date().addingTimeInterval(within)
            return lock.withLock {
                while true {
                    if let found = Self.quietRun(recorded, below: level, after: start, lasting: seconds) { return found }
                    if stopped || !lock.wait(until: deadline) { return nil }
                }
            }
        }
    }

    static func quietRun(_ blocks: [(time: Date, level: Double)], below level: Double, after start: Date, lasting: Double) -> Date? {
        var runStart: Date?
        for block in blocks where block.time >= start {
            guard block.level < level else {
                runStart = nil
                continue
            }
            let first = runStart ?? block.time
            runStart = first
            if block.time.timeIntervalSince(first) >= lasting { return first }
        }
        return nil
    }
}

extension TestPulseAudio {
    /// The source the pipe microphone appears as (hark records from it through PULSE_SOURCE).
    public static let microphoneSource = "hark_mic"

    /// Adds the pipe microphone to this server (the null sink's monitor stays the default
    /// source, for `SinkMonitor`) and starts feeding it.
    public func microphone() throws -> MicrophoneFeed {
        let fifo = directory.file("mic")
        let result = try Subprocess.run(["/usr/bin/pactl", "load-module", "module-pipe-source", "source_name=\(Self.microphoneSource)",
                                         "file=\(fifo)", "format=s16le", "rate=\(MicrophoneFeed.rate)", "channels=1"],
                                        environment: environment())
        _ = try Subprocess.run(["/usr/bin/pactl", "set-default-source", "hark_test.monitor"], environment: environment())
        guard result.status == 0 else { throw Failure.start("module-pipe-source: " + String(decoding: result.stderr, as: UTF8.self)) }
        return try MicrophoneFeed(fifo: fifo)
    }

    /// Records what is played into the null sink.
    public func monitor() throws -> SinkMonitor { try SinkMonitor(server: server) }

    /// The environment of a hark that hears the pipe microphone.
    public func environmentWithMicrophone(_ base: [String: String]) -> [String: String] {
        var environment = self.environment(base)
        environment["PULSE_SOURCE"] = Self.microphoneSource
        return environment
    }
}
